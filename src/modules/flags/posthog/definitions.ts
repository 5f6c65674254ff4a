import type { ExperimentForFlags } from "../../experiments/service.js";
import type { FlagT, RuleT } from "../schema.js";

/**
 * Lift's flags as PostHog's local-evaluation definitions (what posthog-node polls with a personal
 * API key). Only flags PostHog's SDKs evaluate exactly as Lift does get their rules; any other flag
 * is marked so that the SDK asks `/flags` (Lift's remote evaluation) for it. docs/posthog.md,
 * "Local evaluation", lists what maps.
 */

interface PropertyFilter {
  key: string;
  value: string[];
  operator: "exact";
  type: "person";
}
interface Group {
  properties: PropertyFilter[];
  rollout_percentage: number;
  variant?: string;
}
export interface PostHogDefinition {
  id: number;
  key: string;
  name: string;
  active: boolean;
  /** PostHog's mark of a flag its SDKs must ask the server for (serverOnlyDefinition). */
  ensure_experience_continuity?: true;
  filters: {
    groups: Group[];
    multivariate?: { variants: { key: string; rollout_percentage: number }[] };
    payloads: Record<string, string>;
  };
}

/** Attributes Lift fills in itself from PostHog's request: not person properties. */
const RESERVED = new Set(["id", "leadId", "groups", "groupProperties"]);

/**
 * A condition as PostHog's person-property filters, or null when it has no exact equivalent. Only
 * `{attr: {$ini: [strings]}}` maps: PostHog's `exact` is a case-insensitive match of strings, as
 * GrowthBook's `$ini` is; a property the SDK is not given makes PostHog ask the server, which is
 * Lift. Case-sensitive `$eq`, ranges, versions, cohorts and the rest do not map.
 */
function filtersOf(condition: Record<string, unknown> | undefined): PropertyFilter[] | null {
  if (!condition) return [];
  const out: PropertyFilter[] = [];
  for (const [key, test] of Object.entries(condition)) {
    if (key.startsWith("$") || key.includes(".") || RESERVED.has(key)) return null;
    if (typeof test !== "object" || test === null || Array.isArray(test)) return null;
    const ops = Object.entries(test);
    if (ops.length !== 1 || ops[0]![0] !== "$ini") return null;
    const values = ops[0]![1];
    if (!Array.isArray(values) || values.length === 0) return null;
    if (!values.every((v) => typeof v === "string" && v !== "")) return null;
    out.push({ key, value: values as string[], operator: "exact", type: "person" });
  }
  return out;
}

/** PostHog's percentage for a share; the same arithmetic as Lift's PostHog hashing compares with. */
const percent = (share: number) => share * 100;

/** A Lift rule as PostHog's condition group (null: it does not map; undefined: it serves nothing). */
function groupOf(
  flag: FlagT,
  rule: RuleT,
  experiments: Map<string, ExperimentForFlags>,
  variants: { split: Map<string, number> | null; forced: Set<string> },
): Group | null | undefined {
  const properties = filtersOf(rule.condition as Record<string, unknown> | undefined);
  if (!properties) return null;
  const serve = (value: unknown, rollout: number): Group | null => {
    if (flag.valueType === "boolean")
      return value === true ? { properties, rollout_percentage: rollout } : null;
    if (typeof value !== "string" || value === "") return null;
    variants.forced.add(value);
    return { properties, rollout_percentage: rollout, variant: value };
  };
  if (rule.type === "force") return serve(rule.value, 100);
  // Rollouts and running experiments place people by a hash: PostHog's only with its hashing.
  const posthog = flag.hashing === "posthog";
  if (rule.type === "rollout")
    return posthog && (rule.hashAttribute ?? "id") === "id"
      ? serve(rule.value, percent(rule.coverage))
      : null;
  const e = experiments.get(rule.experimentId);
  if (!e || e.variants.length !== rule.variations.length) return undefined;
  if (e.status === "completed" && e.winner !== null) {
    const i = e.variants.indexOf(e.winner);
    return i < 0 ? undefined : serve(rule.variations[i], 100);
  }
  if (e.status !== "running") return undefined;
  // A running experiment: PostHog's multivariate split, the flag's one set of variants.
  if (!posthog || flag.valueType !== "string" || variants.split) return null;
  const values = rule.variations as unknown[];
  if (!values.every((v) => typeof v === "string" && v !== "") || new Set(values).size !== values.length)
    return null;
  variants.split = new Map(values.map((v, i) => [v as string, percent(e.weights[i] ?? 0)]));
  return { properties, rollout_percentage: e.trafficSplit };
}

/**
 * The flag's definition, or null when PostHog's SDK could compute another value than Lift: a
 * GrowthBook-hashed rollout or experiment, a number or JSON flag, a default other than off (false,
 * ""), a rule serving off before others, a condition without a PostHog equivalent.
 */
export function definitionOf(
  flag: FlagT,
  id: number,
  experiments: Map<string, ExperimentForFlags>,
): PostHogDefinition | null {
  const off = flag.valueType === "boolean" ? false : flag.valueType === "string" ? "" : undefined;
  if (off === undefined || flag.defaultValue !== off) return null;
  const base = { id, key: flag.key, name: flag.description ?? flag.key };
  if (!flag.enabled) return { ...base, active: false, filters: { groups: [], payloads: {} } };
  const variants = { split: null as Map<string, number> | null, forced: new Set<string>() };
  const groups: Group[] = [];
  for (const rule of flag.rules) {
    const group = groupOf(flag, rule, experiments, variants);
    if (group === null) return null;
    if (group) groups.push(group);
  }
  const filters: PostHogDefinition["filters"] = { groups, payloads: {} };
  // The split's variants first, in its order (their ranges start at 0); forced values after, at 0%.
  const all = new Map(variants.split ?? []);
  for (const v of variants.forced) if (!all.has(v)) all.set(v, 0);
  if (all.size > 0) {
    filters.multivariate = { variants: [...all].map(([key, p]) => ({ key, rollout_percentage: p })) };
    // Lift's remote answer carries a string flag's value as its payload, JSON text.
    filters.payloads = Object.fromEntries([...all.keys()].map((k) => [k, JSON.stringify(k)]));
  }
  return { ...base, active: true, filters };
}

/**
 * A flag whose rules do not map (a cohort, GrowthBook's hashing, …), defined only so that PostHog's
 * SDKs know it and ask `/flags` for it: experience continuity is PostHog's own mark of a flag that
 * local evaluation cannot answer. Left out instead, posthog-node's `getAllFlags` would drop it
 * whenever every flag it knows was answered locally. No rule is published: not its conditions,
 * and never a cohort's members.
 */
export function serverOnlyDefinition(flag: FlagT, id: number): PostHogDefinition {
  return {
    id,
    key: flag.key,
    name: flag.description ?? flag.key,
    active: true,
    ensure_experience_continuity: true,
    filters: { groups: [], payloads: {} },
  };
}

/** Experiment ids the flags' rules name (to read them once). */
export const experimentIdsOfFlags = (flags: FlagT[]) => [
  ...new Set(flags.flatMap((f) => f.rules.flatMap((r) => (r.type === "experiment" ? [r.experimentId] : [])))),
];
