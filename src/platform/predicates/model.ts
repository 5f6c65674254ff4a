/**
 * The one predicate language of conversion goals, report filters and cohorts. Each wire form is
 * parsed into it at the edge (goals: `goals/matching.ts`; the report filter:
 * `analytics/filters/filter.ts`); past that, code knows only this model. It has one evaluator in
 * memory (`evaluate.ts`) and one SQL compiler, the analytics engine's (`analytics/engine/sql.ts`).
 *
 * A predicate reads one field of an event (its `type`, its `url`, its `page` — the URL without
 * query string or fragment —, a property of its `data` by a path of names), of a session (a session column) or of a person (`lead` properties, `cohort`),
 * and holds or not. Every value is judged as the engine's JSON functions read it: missing and JSON
 * null are "no value"; a number or boolean has the text JSON gives it.
 */
export const PREDICATE_OPS = [
  "is",
  "is_not",
  "contains",
  "not_contains",
  "matches",
  "url",
  "set",
  "not_set",
  "gt",
  "gte",
  "lt",
  "lte",
] as const;
export type PredicateOp = (typeof PREDICATE_OPS)[number];

export interface Predicate {
  /** `type`, `url`, `page` or `data` of an event; a session column; `lead` or `cohort` of a person */
  field: string;
  /** for `data` and `lead`: the property, as a path of names into nested objects */
  path?: readonly string[];
  /**
   * - `is` / `is_not`: the value's text is (not) one of `values` (case-sensitive);
   * - `contains` / `not_contains`: its text holds (not) `values[0]`, ignoring case;
   * - `matches`: its text is the `*` pattern `values[0]`, ignoring case (`platform/glob.ts`);
   * - `url`: a URL pattern `values[0]` against the URL's path, host and path, or whole
   *   (`url.ts`), ignoring case;
   * - `set` / `not_set`: it has a value (not missing, not JSON null), or not;
   * - `gt`, `gte`, `lt`, `lte`: it is a number compared with `num`.
   */
  op: PredicateOp;
  values: readonly string[];
  num?: number;
  /** `is` / `is_not`: no value (missing or JSON null) counts as one of the values */
  absent?: boolean;
  /** `is` / `is_not`: a JSON null (present, but null) counts as one of the values */
  nullValue?: boolean;
  /** `contains`: only a string contains anything (not a number's or boolean's text) */
  stringsOnly?: boolean;
  /** comparisons: a string that reads as a number counts as that number (form fields) */
  numericText?: boolean;
}

/** What a predicate about an event reads. */
export interface PredicateEvent {
  type: string;
  url: string;
  data: Record<string, unknown> | null | undefined;
}
