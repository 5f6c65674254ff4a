import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from "fastify";
import type { Tier } from "../../platform/auth/principal.js";
import { getWorkspaceRef } from "../workspace/service.js";
import { TxError } from "../../platform/errors.js";
import type { TxPrincipal } from "./keys.js";
import { boundedCache } from "../../platform/cache.js";

/** Sends per minute per key by workspace plan tier (DESIGN.md). */
export const TIER_SENDS_PER_MINUTE: Record<Tier, number> = {
  free: 60,
  starter: 300,
  pro: 1200,
  growth: 3000,
  scale: 12_000,
};

// A plan change takes effect within this delay; reading the tier on every send would add a query.
const TIER_TTL_MS = 5_000;

declare module "fastify" {
  interface FastifyRequest {
    txPrincipal?: TxPrincipal;
  }
}

/** The per-key limit; @fastify/rate-limit (Redis when configured) sets X-RateLimit-* on every response. */
export function txRateLimit(app: FastifyInstance): preHandlerAsyncHookHandler {
  const tiers = boundedCache<string, Tier>(10_000, TIER_TTL_MS);
  const tierOf = async (workspaceId: string): Promise<Tier> => {
    const hit = tiers.get(workspaceId);
    if (hit) return hit;
    const { tier } = await getWorkspaceRef(app.db, workspaceId);
    tiers.set(workspaceId, tier);
    return tier;
  };
  return app.rateLimit({
    timeWindow: 60_000,
    keyGenerator: (req: FastifyRequest) => `tx-send:${req.txPrincipal?.keyId ?? req.ip}`,
    max: async (req: FastifyRequest) =>
      req.txPrincipal
        ? TIER_SENDS_PER_MINUTE[await tierOf(req.txPrincipal.workspaceId)]
        : TIER_SENDS_PER_MINUTE.free,
    errorResponseBuilder: (_req, ctx) => {
      const err = new TxError(
        "rate_limited",
        `rate limit exceeded: ${ctx.max} sends per minute for this key; retry in ${ctx.after}`,
      );
      return err as unknown as object;
    },
  }) as preHandlerAsyncHookHandler;
}
