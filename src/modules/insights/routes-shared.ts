import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { createLimit } from "../../platform/rate-limit.js";
import { SharedDashboard, TokenParams } from "./schema.js";
import * as svc from "./service.js";

/**
 * A shared dashboard's public, read-only view: no session, no key — the unguessable token in the
 * path is the whole credential. Limited per address (the read limit), results computed at most
 * once a minute per dashboard (results.ts), and GET only: there is nothing to change here.
 */
export const sharedRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const limit = createLimit(app, {
    name: "shared-dashboard",
    max: app.config.rateLimits.reads,
    key: (req) => req.ip,
  });
  app.get(
    "/api/shared/dashboards/:token",
    {
      schema: {
        operationId: "getSharedDashboard",
        summary: "A shared dashboard's names and results (public: the link's token is the credential)",
        errors: ["NOT_FOUND", "RATE_LIMITED"],
        params: TokenParams,
        response: { 200: SharedDashboard },
        tags: ["insights"],
      },
      preHandler: limit ? [limit] : [],
    },
    async (req, reply) => {
      // Not for caches between here and the viewer: a revoked link must stop showing at once.
      reply.header("cache-control", "no-store").header("referrer-policy", "no-referrer");
      return svc.sharedDashboard(app.deps, req.params.token);
    },
  );
};
