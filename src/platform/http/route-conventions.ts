import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import { authKindOf } from "../auth/plugin.js";

/**
 * CORS is off everywhere but on routes marked `publicCors` (the snippet's and SDKs' endpoints),
 * which are open to any origin: one static answer set by a hook on those routes alone. It
 * replaced @fastify/cors, whose global hook builds an options object and reads `routeOptions` on
 * every request, 3.7% of the single-event path's CPU (bench/README.md) for two headers.
 * Preflights are answered by each public route's own OPTIONS route; one without the preflight
 * headers gets the same answer (a browser's always has them).
 */
function openCors(req: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void {
  reply.header("access-control-allow-origin", "*");
  if (req.method === "OPTIONS") {
    reply.header("access-control-allow-methods", "GET, POST, OPTIONS");
    const asked = req.headers["access-control-request-headers"];
    if (asked)
      reply.header("access-control-allow-headers", asked).header("vary", "Access-Control-Request-Headers");
    reply.header("access-control-max-age", "86400");
  }
  done();
}

/** What every route gets when it is added: a place in the route table, auth first, public CORS. */
export function registerRouteConventions(app: FastifyInstance): void {
  const routeTable: string[] = [];
  app.decorate("routeTable", routeTable);
  app.addHook("onRoute", (route) => {
    for (const m of [route.method].flat())
      if (m !== "HEAD" && m !== "OPTIONS") routeTable.push(`${m} ${route.url}`);
    // Authentication (and its rate limit) runs before body validation: a caller without valid
    // credentials learns nothing from the body's validation, and invalid bodies still count
    // against the limit. Routes declare their guard as a preHandler; it moves to preValidation.
    const pre = [route.preHandler ?? []].flat();
    const guards = pre.filter((hook) => authKindOf(hook));
    if (guards.length) {
      route.preHandler = pre.filter((hook) => !authKindOf(hook));
      route.preValidation = [...guards, ...[route.preValidation ?? []].flat()];
    }
    if (route.config?.publicCors) route.onRequest = [openCors, ...[route.onRequest ?? []].flat()];
  });
}
