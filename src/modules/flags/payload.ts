import type { FeatureDefinition, FeatureRule } from "@growthbook/growthbook";
import type { ExperimentForFlags } from "../experiments/service.js";
import { type CohortUse, collectCohorts } from "./conditions.js";
import {
  type PostHogSlot,
  postHogExperiment,
  postHogRollout,
  postHogSlots,
  type SlotFor,
} from "./hashing.js";
import type { FlagT, RuleT } from "./schema.js";

/**
 * Lift's flags as GrowthBook's SDK payload: the one thing every SDK and the server evaluate
 * (DESIGN.md: one truth). Built from the stored flags and the experiments their rules name.
 */
export interface SdkPayload {
  status: 200;
  features: Record<string, FeatureDefinition>;
  dateUpdated: string;
}

/** How a served rule answers `POST /api/flags/:key/evaluate` (GrowthBook says only "force"). */
export interface RuleMeta {
  type: "force" | "rollout" | "experiment";
  /** A completed experiment's rule serves its winner: that variant's name. */
  variant?: string;
}

export interface BuiltPayload {
  /** Every flag, as the server evaluates them (PostHog-hashed rollouts included: hashing.ts). */
  payload: SdkPayload;
  /**
   * What local SDKs download: `payload` without the PostHog-hashed flags, which GrowthBook's SDKs
   * cannot hash as PostHog does and so get by remote evaluation only.
   */
  served: SdkPayload;
  /** The PostHog hashes an evaluation of `payload` needs (hashing.ts `withPostHogHashes`). */
  postHogSlots: PostHogSlot[];
  /** `${flagKey}\u0000${ruleId}` → what the rule is. */
  rules: Map<string, RuleMeta>;
  /** flag key → the cohorts its served rules test (cohorts.ts); flags without any are absent */
  cohorts: Map<string, CohortUse>;
}

export const ruleKey = (flagKey: string, ruleId: string) => `${flagKey}\u0000${ruleId}`;

/**
 * `revisedAt` is the project's flag revision time. `dateUpdated` is what SDKs compare to decide
 * whether a payload is new, so it is the newest of that and of the named experiments' changes
 * (`experiments` holds exactly the experiments the rules name).
 */
export function buildPayload(
  flags: FlagT[],
  experiments: Map<string, ExperimentForFlags>,
  revisedAt: string,
): BuiltPayload {
  const features: Record<string, FeatureDefinition> = {};
  const servedFeatures: Record<string, FeatureDefinition> = {};
  const slots = postHogSlots();
  const rules = new Map<string, RuleMeta>();
  const cohorts = new Map<string, CohortUse>();
  let dateUpdated = revisedAt;
  for (const e of experiments.values()) if (e.updatedAt > dateUpdated) dateUpdated = e.updatedAt;
  // Sorted by key: the same flags always give the same bytes, so the ETag only moves on a change.
  for (const flag of [...flags].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
    // The kill switch: no rules at all, so every SDK serves the default to everyone.
    if (!flag.enabled) {
      features[flag.key] = { defaultValue: flag.defaultValue };
      if (flag.hashing !== "posthog") servedFeatures[flag.key] = features[flag.key]!;
      continue;
    }
    const served: FeatureRule[] = [];
    const uses: CohortUse = new Map();
    for (const rule of flag.rules) {
      const out = serveRule(flag.key, rule, experiments, flag.hashing === "posthog" ? slots.slotFor : null);
      if (!out) continue;
      served.push(...out.rules);
      rules.set(ruleKey(flag.key, rule.id), out.meta);
      collectCohorts(rule.condition, uses);
    }
    if (uses.size > 0) cohorts.set(flag.key, uses);
    features[flag.key] = served.length
      ? { defaultValue: flag.defaultValue, rules: served }
      : { defaultValue: flag.defaultValue };
    if (flag.hashing !== "posthog") servedFeatures[flag.key] = features[flag.key]!;
  }
  return {
    payload: { status: 200, features, dateUpdated },
    served: { status: 200, features: servedFeatures, dateUpdated },
    postHogSlots: slots.list(),
    rules,
    cohorts,
  };
}

/**
 * `postHogSlot`: for a PostHog-hashed flag, the slot of the hash its rollouts compare (hashing.ts);
 * null for GrowthBook's hashing.
 */
function serveRule(
  flagKey: string,
  rule: RuleT,
  experiments: Map<string, ExperimentForFlags>,
  postHogSlot: SlotFor | null,
): { rules: FeatureRule[]; meta: RuleMeta } | null {
  const out = serveOne(flagKey, rule, experiments);
  if (!out || !postHogSlot) return out && { rules: [out.rule], meta: out.meta };
  // PostHog's hashing: a rollout's coverage, or a running experiment's coverage and variants.
  if (rule.type === "rollout") {
    const served = postHogRollout(
      { id: rule.id, ...(out.rule.condition ? { condition: out.rule.condition } : {}), force: rule.value },
      flagKey,
      rule.coverage,
      rule.hashAttribute ?? "id",
      postHogSlot,
    );
    return { rules: [served], meta: out.meta };
  }
  if (out.rule.variations)
    return { rules: postHogExperiment(out.rule, flagKey, postHogSlot), meta: out.meta };
  return { rules: [out.rule], meta: out.meta };
}

function serveOne(
  flagKey: string,
  rule: RuleT,
  experiments: Map<string, ExperimentForFlags>,
): { rule: FeatureRule; meta: RuleMeta } | null {
  const base: FeatureRule = { id: rule.id };
  if (rule.condition && Object.keys(rule.condition).length > 0) base.condition = rule.condition;
  if (rule.type === "force") return { rule: { ...base, force: rule.value }, meta: { type: "force" } };
  if (rule.type === "rollout") {
    return {
      rule: {
        ...base,
        force: rule.value,
        coverage: rule.coverage,
        hashAttribute: rule.hashAttribute ?? "id",
        // GrowthBook's default seed (the flag key), with hash v2: raising coverage only adds users.
        seed: flagKey,
        hashVersion: 2,
      },
      meta: { type: "rollout" },
    };
  }
  const e = experiments.get(rule.experimentId);
  // A rule whose experiment is gone or whose variants changed under it serves nothing.
  if (!e || e.variants.length !== rule.variations.length) return null;
  if (e.status === "running") {
    return {
      rule: {
        ...base,
        key: e.id,
        seed: e.id,
        hashVersion: 2,
        hashAttribute: "id",
        name: e.name,
        variations: rule.variations,
        weights: e.weights,
        coverage: e.trafficSplit / 100,
        meta: e.variants.map((name) => ({ key: name, name })),
      },
      meta: { type: "experiment" },
    };
  }
  // Ship the winner: a completed experiment's rule serves the winner's value to everyone it matches.
  const winner = e.status === "completed" && e.winner !== null ? e.variants.indexOf(e.winner) : -1;
  if (winner >= 0)
    return {
      rule: { ...base, force: rule.variations[winner] },
      meta: { type: "experiment", variant: e.winner! },
    };
  // Draft, paused, or completed without a winner: skipped (its change still moves dateUpdated).
  return null;
}

/** Experiment ids the flags' rules name. */
export function experimentIdsOf(flags: FlagT[]): string[] {
  const ids = new Set<string>();
  for (const f of flags) for (const r of f.rules) if (r.type === "experiment") ids.add(r.experimentId);
  return [...ids];
}
