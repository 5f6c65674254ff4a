import type { Tier } from "../../platform/auth/principal.js";

/** What each plan tier allows: transactional sends per minute per key (DESIGN.md). */
export const TIER_SENDS_PER_MINUTE: Record<Tier, number> = {
  free: 60,
  starter: 300,
  pro: 1200,
  growth: 3000,
  scale: 12_000,
};
