import type { FastifyInstance, FastifyRequest } from "fastify";
import { safeEqual } from "../crypto.js";
import { AppError } from "../errors.js";
import { sql } from "kysely";
import client from "prom-client";
import type { Db } from "../db/index.js";

/** Prometheus metrics: process defaults and request durations by route; served at /metrics. */
export function registerMetrics(app: FastifyInstance): client.Registry {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const httpDuration = new client.Histogram({
    name: "http_request_duration_seconds",
    help: "HTTP request duration",
    labelNames: ["method", "route", "status"],
    registers: [registry],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
  });
  app.decorate("metricsRegistry", registry);
  // One labelled child per method, route and status, kept: observing through a labels object
  // hashes the labels on every request (1.3% of the single-event path's CPU).
  const children = new Map<string, client.Histogram.Internal<"method" | "route" | "status">>();
  app.addHook("onResponse", (req, reply, done) => {
    const route = req.routeOptions.url ?? "unknown";
    const key = `${req.method} ${reply.statusCode} ${route}`;
    let child = children.get(key);
    if (!child) {
      child = httpDuration.labels({ method: req.method, route, status: String(reply.statusCode) });
      children.set(key, child);
    }
    child.observe(reply.elapsedTime / 1000);
    done();
  });
  return registry;
}

/** /healthz and /metrics (hidden from the API documentation). */
export function registerProbes(app: FastifyInstance, db: Db, redisUp: (() => boolean) | undefined): void {
  app.get("/healthz", { schema: { hide: true } }, async (_req, reply) => {
    try {
      await sql`select 1`.execute(db);
      // Degraded, not down: the API still serves everything, with rate limits failing open.
      // A 503 here would make load balancers drop every node during a Redis outage.
      if (redisUp && !redisUp()) return { status: "degraded", redis: "unavailable" };
      return { status: "ok" };
    } catch {
      return reply.code(503).send({ status: "unavailable" });
    }
  });
  app.get("/metrics", { schema: { hide: true } }, async (req, reply) => {
    if (!metricsAllowed(req, app.config.metricsToken))
      throw new AppError(
        "UNAUTHORIZED",
        "/metrics needs METRICS_TOKEN as a bearer token (without one set, it answers loopback clients only)",
      );
    return reply.type(app.metricsRegistry.contentType).send(await app.metricsRegistry.metrics());
  });
}

const LOOPBACK = /^(127(\.\d{1,3}){3}|::1|::ffff:127(\.\d{1,3}){3})$/;

/**
 * /metrics names routes, volumes and the process's memory: for the operator only. With
 * METRICS_TOKEN, the bearer token must match; without it, only a client on this machine that
 * connected directly (a local Prometheus or sidecar). A forwarding header means a local reverse
 * proxy brought the request from elsewhere, so it is refused whatever TRUST_PROXY says: a
 * forwarded address can be claimed; scraping through a proxy takes METRICS_TOKEN.
 */
function metricsAllowed(req: FastifyRequest, token: string | undefined): boolean {
  if (token) {
    const auth = req.headers.authorization;
    return typeof auth === "string" && /^bearer /i.test(auth) && safeEqual(auth.slice(7).trim(), token);
  }
  const forwarded = req.headers["x-forwarded-for"] !== undefined || req.headers.forwarded !== undefined;
  return !forwarded && LOOPBACK.test(req.socket.remoteAddress ?? "");
}
