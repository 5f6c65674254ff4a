import type { LookupFunction } from "node:net";
import https from "node:https";
import ipaddr from "ipaddr.js";
import type { Config } from "../../config.js";
import type { ResolvedTarget } from "./ssrf.js";

export const DELIVERY_TIMEOUT_MS = 10_000;
const USER_AGENT = "Lift-Webhooks/1.0";

export interface SendResult {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  /** Seconds asked for by a Retry-After header (delta-seconds or HTTP date), if any. */
  retryAfterSeconds: number | null;
}

/**
 * Extra CA certificates trusted by deliveries of one app. Test-only: a test's self-signed receiver
 * is trusted here instead of turning TLS verification off for the process.
 */
export function trustCaForTests(config: Config, ca: string | Buffer): void {
  config.webhookExtraCa = ca;
}

export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return null;
  if (/^\d+$/.test(v.trim())) return Number(v.trim());
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * POSTs `body` to the target over HTTPS, dialling the vetted address while TLS (SNI, certificate
 * check) and the Host header use the URL's hostname. node:https never follows redirects, so a 3xx
 * comes back as a status like any other; the whole exchange is bounded by DELIVERY_TIMEOUT_MS.
 */
export function sendWebhook(
  config: Config,
  target: ResolvedTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs = DELIVERY_TIMEOUT_MS,
): Promise<SendResult> {
  const started = performance.now();
  const pinned: LookupFunction = (_host, opts, cb) => {
    if (opts.all) {
      (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
        { address: target.address, family: target.family },
      ]);
    } else cb(null, target.address, target.family);
  };
  const isIp = ipaddr.isValid(target.hostname);
  return new Promise((resolve) => {
    let settled = false;
    const done = (r: Omit<SendResult, "durationMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...r, durationMs: Math.round(performance.now() - started) });
    };
    const req = https.request(
      {
        method: "POST",
        host: target.hostname,
        port: target.port,
        path: `${target.url.pathname}${target.url.search}`,
        servername: isIp ? undefined : target.hostname,
        lookup: pinned,
        agent: false,
        ca: config.webhookExtraCa,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body).toString(),
          "user-agent": USER_AGENT,
          ...headers,
        },
      },
      (res) => {
        // Drain (a little of) the body so the socket closes cleanly; its content is not needed.
        res.on("data", () => {});
        res.on("end", () =>
          done({
            statusCode: res.statusCode ?? null,
            error: null,
            retryAfterSeconds: parseRetryAfter(res.headers["retry-after"]),
          }),
        );
        const cut = (e?: Error) =>
          done({
            statusCode: res.statusCode ?? null,
            error: e?.message ?? "connection closed before the response ended",
            retryAfterSeconds: null,
          });
        res.on("error", cut);
        res.on("close", () => cut());
      },
    );
    const timer = setTimeout(() => {
      req.destroy(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    req.on("error", (e) => done({ statusCode: null, error: e.message, retryAfterSeconds: null }));
    req.end(body);
  });
}
