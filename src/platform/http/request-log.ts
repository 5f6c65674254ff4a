import type { FastifyInstance } from "fastify";
import { redactUrl } from "../log-redaction.js";

/** A request slower than this is logged whatever its status. */
export const SLOW_REQUEST_MS = 1000;
const SUMMARY_EVERY_MS = 60_000;

/**
 * What a busy server logs about requests. Fastify's default — two info lines per request — grows
 * the log by hundreds of megabytes an hour under load (docs/decisions/performance.md). Kept instead:
 * - every 4xx, one line with its request id (a 5xx has the error handler's line, with its request id
 *   and the error), and every request slower than SLOW_REQUEST_MS;
 * - once a minute, one summary line of the answers under 400: how many per route and status class,
 *   and the slowest. Operators see traffic; the hot path pays a map increment per request.
 */
export function registerRequestLog(app: FastifyInstance): void {
  let counts = new Map<string, number>();
  let slowestMs = 0;
  let total = 0;
  const flush = () => {
    if (total === 0) return;
    app.log.info(
      { requests: total, byRoute: Object.fromEntries(counts), slowestMs: Math.round(slowestMs) },
      "requests in the last minute",
    );
    counts = new Map();
    slowestMs = 0;
    total = 0;
  };
  const timer = setInterval(flush, SUMMARY_EVERY_MS);
  timer.unref();
  app.addHook("onClose", async () => {
    clearInterval(timer);
    flush();
  });
  app.addHook("onResponse", (req, reply, done) => {
    const status = reply.statusCode;
    const ms = reply.elapsedTime;
    if (status >= 400 || ms >= SLOW_REQUEST_MS) {
      const line = { reqId: req.id, method: req.method, url: redactUrl(req.url), status, ms: Math.round(ms) };
      if (ms >= SLOW_REQUEST_MS) app.log.warn(line, "slow request");
      else if (status < 500) app.log.info(line, "request refused");
    } else {
      const key = `${req.method} ${req.routeOptions.url ?? "(unmatched)"} ${Math.floor(status / 100)}xx`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      total++;
      if (ms > slowestMs) slowestMs = ms;
    }
    done();
  });
}
