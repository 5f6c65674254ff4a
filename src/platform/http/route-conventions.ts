import type { FastifyInstance } from "fastify";
import { authKindOf } from "../auth/plugin.js";

// CORS is off by default; routes marked `publicCors` (the snippet's endpoints) get open CORS
// through the plugin's static per-route options, so no options object is built per request.
// Not strict: a browser's preflight always has Origin and Access-Control-Request-Method, and the
// strict mode's answer to one without them is a text/plain 400 outside our error format.
const PUBLIC_CORS = {
  origin: "*",
  methods: ["GET", "POST", "OPTIONS"],
  maxAge: 86400,
  strictPreflight: false,
};

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
    if (route.config?.publicCors)
      route.config = { ...route.config, cors: PUBLIC_CORS } as typeof route.config;
  });
}
