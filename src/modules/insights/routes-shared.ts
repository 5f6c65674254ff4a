import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { sha256Hex } from "../../platform/crypto.js";
import { createLimit } from "../../platform/rate-limit.js";
import { SharedDashboard, TokenParams } from "./schema.js";
import * as svc from "./service.js";

/**
 * A shared dashboard's public, read-only view: no session, no key — the unguessable token in the
 * path is the whole credential. Limited per address (the read limit) and per link, answered from
 * kept results recomputed at most once a minute per dashboard (results.ts), and GET only: there is
 * nothing to change here.
 */
export const sharedRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const perAddress = createLimit(app, {
    name: "shared-dashboard",
    max: app.config.rateLimits.reads,
    key: (req) => req.ip,
  });
  // A link on a busy page has many viewers, each served a kept answer; the bound is on what one
  // link can make the server read, whoever asks (the token itself is not kept in the counter's key).
  const perLink = createLimit(app, {
    name: "shared-dashboard-link",
    max: app.config.rateLimits.reads * 5,
    key: (req) => sha256Hex((req.params as { token?: string }).token ?? ""),
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
      preHandler: [perAddress, perLink].filter((l) => l !== null),
    },
    async (req, reply) => {
      // Not for caches between here and the viewer: a revoked link must stop showing at once.
      reply.header("cache-control", "no-store").header("referrer-policy", "no-referrer");
      return svc.sharedDashboard(app.deps, req.params.token);
    },
  );
};
