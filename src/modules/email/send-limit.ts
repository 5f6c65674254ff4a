import type { Tier } from "../../platform/auth/principal.js";
import { boundedCache } from "../../platform/cache.js";
import type { Db } from "../../platform/db/index.js";
import { getWorkspaceRef } from "../workspace/service.js";
import { TxError } from "./errors.js";

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

/** A workspace's sends per minute per key, from its plan tier (cached for a few seconds). */
export function sendsPerMinute(db: Db): (workspaceId: string | null) => Promise<number> {
  const tiers = boundedCache<string, Tier>(10_000, TIER_TTL_MS);
  return async (workspaceId) => {
    // Before its key is known, a request is held to the smallest plan's limit.
    if (workspaceId === null) return TIER_SENDS_PER_MINUTE.free;
    let tier = tiers.get(workspaceId);
    if (!tier) {
      tier = (await getWorkspaceRef(db, workspaceId)).tier;
      tiers.set(workspaceId, tier);
    }
    return TIER_SENDS_PER_MINUTE[tier];
  };
}

export const sendLimitExceeded = (max: number, after: string) =>
  new TxError("rate_limited", `rate limit exceeded: ${max} sends per minute for this key; retry in ${after}`);
