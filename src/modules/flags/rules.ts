import { randomBase62 } from "../../platform/crypto.js";
import { validation } from "../../platform/errors.js";
import type { ExperimentForFlags } from "../experiments/service.js";
import { type CohortRef, checkCondition } from "./conditions.js";
import { MAX_VALUE_BYTES, type RuleInT, type RuleT } from "./schema.js";
import type { FlagValueType } from "./tables.js";

/** Values and rules as stored: typed against the flag, conditions checked, ids given. */

const TYPE_WORDS: Record<FlagValueType, string> = {
  boolean: "true or false",
  string: "a string",
  number: "a number",
  json: "a JSON object or array",
};

function hasType(type: FlagValueType, v: unknown): boolean {
  switch (type) {
    case "boolean":
      return typeof v === "boolean";
    case "string":
      return typeof v === "string";
    case "number":
      return typeof v === "number" && Number.isFinite(v);
    case "json":
      return typeof v === "object" && v !== null;
  }
}

/** 400 naming the field unless `v` is a value of the flag's type (and not too large). */
export function checkValue(type: FlagValueType, v: unknown, at: string): void {
  if (v === undefined) throw validation(`${at} is required`);
  if (!hasType(type, v))
    throw validation(`${at} must be ${TYPE_WORDS[type]} (the flag's valueType is ${type})`);
  if (JSON.stringify(v).length > MAX_VALUE_BYTES)
    throw validation(`${at} must be at most ${MAX_VALUE_BYTES} bytes as JSON`);
}

export const newRuleId = () => `r_${randomBase62(8)}`;

/**
 * Checks rules in order and gives each an id (kept when sent, so answers and history can name a
 * rule across edits). `experiments` holds the project's experiments the rules name.
 */
export function normalizeRules(
  rules: RuleInT[],
  type: FlagValueType,
  experiments: Map<string, ExperimentForFlags>,
  at = "body.rules",
  /** receives the cohorts the conditions name */
  cohorts: CohortRef[] = [],
): RuleT[] {
  const seen = new Set<string>();
  return rules.map((rule, i): RuleT => {
    const here = `${at}[${i}]`;
    const id = rule.id ?? newRuleId();
    if (seen.has(id)) throw validation(`${here}.id repeats ${id}: rule ids are unique within a flag`);
    seen.add(id);
    const condition = rule.condition;
    if (condition !== undefined) cohorts.push(...checkCondition(condition, `${here}.condition`));
    const base = condition !== undefined ? { id, condition } : { id };
    switch (rule.type) {
      case "force":
        checkValue(type, rule.value, `${here}.value`);
        return { ...base, type: "force", value: rule.value };
      case "rollout":
        checkValue(type, rule.value, `${here}.value`);
        return {
          ...base,
          type: "rollout",
          value: rule.value,
          coverage: rule.coverage,
          ...(rule.hashAttribute !== undefined ? { hashAttribute: rule.hashAttribute } : {}),
        };
      case "experiment": {
        const e = experiments.get(rule.experimentId);
        if (!e)
          throw validation(`${here}.experimentId: experiment ${rule.experimentId} not found in this project`);
        if (rule.variations.length !== e.variants.length)
          throw validation(
            `${here}.variations must hold one value per variant of the experiment, in its order ` +
              `(${e.variants.length}: ${e.variants.join(", ")})`,
          );
        for (const [j, v] of rule.variations.entries()) checkValue(type, v, `${here}.variations[${j}]`);
        return { ...base, type: "experiment", experimentId: rule.experimentId, variations: rule.variations };
      }
      default:
        throw validation(`${here}.type must be force, rollout or experiment`);
    }
  });
}

/** Experiment ids named by rules as sent. */
export const experimentIdsIn = (rules: RuleInT[]) => [
  ...new Set(rules.flatMap((r) => (r.type === "experiment" ? [r.experimentId] : []))),
];
