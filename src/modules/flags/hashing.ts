import { createHash } from "node:crypto";
import type { FeatureRule } from "@growthbook/growthbook";

/**
 * PostHog's rollout hashing, for flags whose `hashing` is "posthog" (moved from PostHog, so each
 * person keeps the value PostHog gave them). GrowthBook's evaluator, which evaluates every Lift
 * flag on the server, hashes only with FNV-1a: a PostHog-hashed rollout is served to it as a force
 * rule whose condition compares a hash the server computes per evaluation and puts in the
 * attributes under `POSTHOG_HASH_ATTRIBUTE` (overwriting whatever the caller sent there).
 */

export const POSTHOG_HASH_ATTRIBUTE = "_liftPostHog";

/** PostHog's scale: the largest 15-hex-digit number (as a double, as PostHog's SDKs divide by it). */
const LONG_SCALE = Number(0xfffffffffffffffn);

/**
 * PostHog's hash of a person for a flag, in [0, 1]: SHA-1 of "<key>.<id><salt>", its first 15 hex
 * digits over LONG_SCALE. A person is in a rollout of p% when it is ≤ p / 100; variants hash with
 * the salt "variant".
 */
export function postHogHash(key: string, id: string, salt = ""): number {
  const hex = createHash("sha1").update(`${key}.${id}${salt}`).digest("hex");
  return Number.parseInt(hex.slice(0, 15), 16) / LONG_SCALE;
}

/** One hash the server computes per evaluation: the flag's, of the attribute it hashes on, salted. */
export interface PostHogSlot {
  slot: string;
  flagKey: string;
  hashAttribute: string;
  salt: "" | "variant";
}

export type SlotFor = (flagKey: string, hashAttribute: string, salt?: "" | "variant") => string;

/** Numbers the (flag, hash attribute) pairs of one payload; the same pair shares a slot. */
export function postHogSlots() {
  const byPair = new Map<string, PostHogSlot>();
  return {
    slotFor: ((flagKey, hashAttribute, salt = "") => {
      const pair = `${flagKey}\u0000${hashAttribute}\u0000${salt}`;
      let s = byPair.get(pair);
      if (!s) {
        s = { slot: `s${byPair.size}`, flagKey, hashAttribute, salt };
        byPair.set(pair, s);
      }
      return s.slot;
    }) as SlotFor,
    list: (): PostHogSlot[] => [...byPair.values()],
  };
}

const path = (slot: string) => `${POSTHOG_HASH_ATTRIBUTE}.${slot}`;
type Condition = NonNullable<FeatureRule["condition"]>;
const and = (condition: FeatureRule["condition"], more: Condition[]): Condition =>
  condition ? { $and: [condition, ...more] } : more.length === 1 ? more[0]! : { $and: more };

/** The condition "this person's PostHog hash for the slot is within `coverage`" (PostHog's `≤`). */
export const inPostHogRollout = (slot: string, coverage: number): Condition => ({
  [path(slot)]: { $lte: coverage },
});

/** A rollout as PostHog places people: in when the flag's hash is ≤ coverage. */
export function postHogRollout(
  base: FeatureRule,
  flagKey: string,
  coverage: number,
  hashAttribute: string,
  slotFor: SlotFor,
): FeatureRule {
  return {
    ...base,
    condition: and(base.condition, [inPostHogRollout(slotFor(flagKey, hashAttribute), coverage)]),
  };
}

/**
 * Each variant's share of PostHog's variant hash, as PostHog's lookup table has them: in the
 * variants' order, each `[min, min + percentage / 100)` with the percentage the weight × 100.
 */
export function postHogVariantRanges(weights: readonly number[]): [number, number][] {
  let min = 0;
  return weights.map((w) => {
    const max = min + (w * 100) / 100;
    const range: [number, number] = [min, max];
    min = max;
    return range;
  });
}

/**
 * A running experiment's rule as PostHog's multivariate flag: in when the flag's hash is within the
 * rule's coverage, the variant the one whose range holds the flag's hash salted "variant". Served
 * as one GrowthBook experiment rule per variant, all of the weight on that variant and the ranges
 * as conditions, so GrowthBook still makes the experiment's tracking call with its variant.
 */
export function postHogExperiment(rule: FeatureRule, flagKey: string, slotFor: SlotFor): FeatureRule[] {
  const weights = rule.weights ?? [];
  const rollout = inPostHogRollout(slotFor(flagKey, "id"), rule.coverage ?? 1);
  const variant = slotFor(flagKey, "id", "variant");
  return postHogVariantRanges(weights).map(([min, max], i) => ({
    ...rule,
    coverage: 1,
    weights: weights.map((_, j) => (j === i ? 1 : 0)),
    condition: and(rule.condition, [rollout, { [path(variant)]: { $gte: min, $lt: max } }]),
  }));
}

/**
 * The attributes with the PostHog hashes the payload's flags in `features` need. A person without
 * a value to hash on gets no hash, so no rollout includes them (as GrowthBook's rollouts do).
 */
export function withPostHogHashes(
  slots: readonly PostHogSlot[],
  features: Record<string, unknown>,
  attributes: Record<string, unknown>,
): Record<string, unknown> {
  if (slots.length === 0) return attributes;
  const hashes: Record<string, number> = {};
  for (const s of slots) {
    if (!Object.hasOwn(features, s.flagKey)) continue;
    const v = attributes[s.hashAttribute];
    if ((typeof v === "string" && v !== "") || (typeof v === "number" && Number.isFinite(v)))
      hashes[s.slot] = postHogHash(s.flagKey, String(v), s.salt);
  }
  return { ...attributes, [POSTHOG_HASH_ATTRIBUTE]: hashes };
}
