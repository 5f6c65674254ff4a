import { type Predicate, type PredicateEvent, eventHolds } from "../../platform/predicates/index.js";
import type { ConditionT } from "./schema.js";

export { urlMatches } from "../../platform/predicates/index.js";

/**
 * A conversion goal's wire form (`eventType`, `urlPattern`, `conditions` per `data` property) in
 * the shared predicate language (platform/predicates), and the match that language's evaluator
 * gives.
 */
export interface ConversionGoalDef {
  eventType: string;
  urlPattern?: string | null;
  conditions?: Record<string, ConditionT> | null;
}
export type MatchableEvent = PredicateEvent;

type Scalar = string | number | boolean | null;

/** Equality as goals always meant it: text against text ("49" = 49: form fields arrive as strings); null only null. */
function equalTo(path: string[], list: readonly Scalar[], op: "is" | "is_not"): Predicate {
  return {
    field: "data",
    path,
    op,
    values: list.filter((v) => v !== null).map(String),
    nullValue: list.includes(null),
  };
}

/** One property's condition: a literal (equality) or an operator object, each operator a predicate. */
function conditionPredicates(name: string, cond: ConditionT): Predicate[] {
  // A name with dots reads nested objects: `meta.src`.
  const path = name.split(".");
  if (cond === null || typeof cond !== "object") return [equalTo(path, [cond], "is")];
  const out: Predicate[] = [];
  const compare = (op: "gt" | "gte" | "lt" | "lte", num: number | undefined) => {
    if (num !== undefined) out.push({ field: "data", path, op, values: [], num, numericText: true });
  };
  if (cond.exists !== undefined)
    out.push({ field: "data", path, op: cond.exists ? "set" : "not_set", values: [] });
  if (cond.eq !== undefined) out.push(equalTo(path, [cond.eq], "is"));
  if (cond.neq !== undefined) out.push(equalTo(path, [cond.neq], "is_not"));
  compare("gt", cond.gt);
  compare("gte", cond.gte);
  compare("lt", cond.lt);
  compare("lte", cond.lte);
  if (cond.contains !== undefined)
    out.push({ field: "data", path, op: "contains", values: [cond.contains], stringsOnly: true });
  if (cond.in !== undefined) out.push(equalTo(path, cond.in, "is"));
  return out;
}

/** The goal as predicates, all of which an event must satisfy: its type, URL pattern and conditions. */
export function goalPredicates(goal: ConversionGoalDef): Predicate[] {
  const out: Predicate[] = [{ field: "type", op: "is", values: [goal.eventType] }];
  if (goal.urlPattern) out.push({ field: "url", op: "url", values: [goal.urlPattern] });
  for (const [name, cond] of Object.entries(goal.conditions ?? {}))
    out.push(...conditionPredicates(name, cond));
  return out;
}

/** A goal with its predicates parsed once, for code that matches many events against it. */
export type ParsedGoal<G extends ConversionGoalDef = ConversionGoalDef> = G & {
  readonly predicates: readonly Predicate[];
};
export const parsedGoal = <G extends ConversionGoalDef>(goal: G): ParsedGoal<G> => ({
  ...goal,
  predicates: goalPredicates(goal),
});

/** Whether an event counts as a conversion for a conversion goal: type, URL pattern and every condition. */
export function matchesConversionGoal(
  goal: ConversionGoalDef & { readonly predicates?: readonly Predicate[] },
  event: MatchableEvent,
): boolean {
  // Most events are of another type: that answer needs no parse of the rest.
  if (goal.eventType !== event.type) return false;
  return eventHolds(goal.predicates ?? goalPredicates(goal), event);
}
