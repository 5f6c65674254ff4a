import { validation } from "../../platform/errors.js";

/**
 * Checks a targeting condition before it is stored. GrowthBook's evaluator (the SDKs' and ours)
 * runs whatever the payload holds, so the payload may only hold what evaluates in bounded time:
 * - no regex operator at all: `$regex` compiles the author's pattern and runs it on attributes any
 *   caller sends, and a backtracking pattern can stall the event loop (and every SDK's);
 * - only the operators GrowthBook documents (an unknown one logs on every evaluation);
 * - saved groups only as Lift's cohorts: `{"id" | "leadId": {"$inGroup" | "$notInGroup": "coh_…"}}`,
 *   whose members the server fills in per evaluation (cohorts.ts); `$savedGroup` is refused;
 * - bounded size and depth, so the work per evaluation is bounded by the condition's size.
 */
export const MAX_CONDITION_BYTES = 8 * 1024;
export const MAX_CONDITION_DEPTH = 8;
const MAX_LIST = 500;
const MAX_VERSION = 100;

const LOGICAL = new Set(["$and", "$or", "$nor"]);
const COMPARE = new Set(["$eq", "$ne", "$lt", "$lte", "$gt", "$gte"]);
const LISTS = new Set(["$in", "$nin", "$ini", "$nini", "$all", "$alli"]);
const VERSIONS = new Set(["$veq", "$vne", "$vgt", "$vgte", "$vlt", "$vlte"]);
const TYPES = new Set(["string", "number", "boolean", "array", "object", "null", "undefined"]);
/** Every spelling of a regex operator GrowthBook has or may add ($regex, $regexi, $notRegex …). */
const REGEX = /regex/i;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** The attributes a cohort condition may test: the visitor id (GrowthBook's `id`) or the lead id. */
export const COHORT_ATTRIBUTES = ["id", "leadId"] as const;
export type CohortAttribute = (typeof COHORT_ATTRIBUTES)[number];
/** A cohort a condition names, where (for a 400 when it is not the project's). */
export interface CohortRef {
  cohortId: string;
  attribute: CohortAttribute;
  at: string;
}
const COHORT_ID = /^coh_[A-Za-z0-9]{1,64}$/;
const GROUP_OPS = new Set(["$inGroup", "$notInGroup"]);

const isObject = (v: unknown): v is Record<string, Json> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
/** GrowthBook's rule: an object whose keys all start with `$` holds operators, else it is a literal. */
const isOperatorObject = (v: Record<string, Json>) => {
  const keys = Object.keys(v);
  return keys.length > 0 && keys.every((k) => k.startsWith("$"));
};

/**
 * Throws 400 naming the field (`at` is the condition's own name, e.g. `body.rules[0].condition`);
 * returns the cohorts it names.
 */
export function checkCondition(condition: unknown, at: string): CohortRef[] {
  if (!isObject(condition)) throw validation(`${at} must be an object`);
  if (JSON.stringify(condition).length > MAX_CONDITION_BYTES)
    throw validation(`${at} must be at most ${MAX_CONDITION_BYTES} bytes as JSON`);
  refuseRegex(condition, at, 0);
  const refs: CohortRef[] = [];
  conditionObject(condition, at, refs);
  return refs;
}

/** Any key or operator spelled like a regex, anywhere (also inside literals), and the depth. */
function refuseRegex(v: Json, at: string, depth: number): void {
  if (depth > MAX_CONDITION_DEPTH)
    throw validation(`${at} is nested deeper than ${MAX_CONDITION_DEPTH} levels`);
  if (Array.isArray(v)) {
    for (const [i, x] of v.entries()) refuseRegex(x, `${at}[${i}]`, depth + 1);
  } else if (isObject(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (k.startsWith("$") && REGEX.test(k))
        throw validation(
          `${at}.${k}: regex operators are not accepted (a pattern can take unbounded time on ` +
            "an attribute a caller sends); use $in, $eq, $exists or the version operators",
        );
      refuseRegex(x, `${at}.${k}`, depth + 1);
    }
  }
}

function conditionObject(c: Record<string, Json>, at: string, refs: CohortRef[]): void {
  for (const [k, v] of Object.entries(c)) {
    const here = `${at}.${k}`;
    if (LOGICAL.has(k)) {
      if (!Array.isArray(v)) throw validation(`${here} must be an array of conditions`);
      for (const [i, sub] of v.entries()) {
        if (!isObject(sub)) throw validation(`${here}[${i}] must be an object`);
        conditionObject(sub, `${here}[${i}]`, refs);
      }
    } else if (k === "$not") {
      if (!isObject(v)) throw validation(`${here} must be a condition object`);
      conditionObject(v, here, refs);
    } else if (k.startsWith("$")) {
      throw validation(`${here} is not a supported condition operator${groupHint(k)}`);
    } else {
      if (k.length > 200) throw validation(`${at}: an attribute name is longer than 200 characters`);
      conditionValue(v, here, { attribute: k, refs });
    }
  }
}

const groupHint = (op: string) =>
  op === "$savedGroup" || op === "$savedGroups"
    ? ' (Lift\'s saved groups are cohorts: {"id": {"$inGroup": "coh_…"}})'
    : "";

/** What a value's operators may refer to: the attribute it tests (none inside arrays' elements). */
interface Scope {
  attribute: string | null;
  refs: CohortRef[];
}

/** A value an attribute is compared with: a literal, or an object of operators. */
function conditionValue(v: Json, at: string, scope: Scope): void {
  if (!isObject(v) || !isOperatorObject(v)) return; // literal: compared as JSON
  for (const [op, arg] of Object.entries(v)) operator(op, arg, `${at}.${op}`, scope);
}

function operator(op: string, arg: Json, at: string, scope: Scope): void {
  if (COMPARE.has(op)) return;
  const elements = { ...scope, attribute: null };
  if (LISTS.has(op)) {
    if (!Array.isArray(arg)) throw validation(`${at} must be an array`);
    if (arg.length > MAX_LIST) throw validation(`${at} must hold at most ${MAX_LIST} items`);
    if (op === "$all" || op === "$alli")
      for (const [i, x] of arg.entries()) conditionValue(x, `${at}[${i}]`, elements);
    return;
  }
  if (VERSIONS.has(op)) {
    if (typeof arg !== "string" || arg.length > MAX_VERSION)
      throw validation(`${at} must be a version string of at most ${MAX_VERSION} characters`);
    return;
  }
  if (GROUP_OPS.has(op)) {
    const attribute = COHORT_ATTRIBUTES.find((a) => a === scope.attribute);
    if (!attribute)
      throw validation(
        `${at}: a cohort is tested on the attribute id (the visitor) or leadId (the lead), not ${scope.attribute ?? "an array's elements"}`,
      );
    if (typeof arg !== "string" || !COHORT_ID.test(arg))
      throw validation(`${at} must be a cohort id (coh_…)`);
    scope.refs.push({ cohortId: arg, attribute, at });
    return;
  }
  switch (op) {
    case "$exists":
      if (typeof arg !== "boolean") throw validation(`${at} must be true or false`);
      return;
    case "$type":
      if (typeof arg !== "string" || !TYPES.has(arg))
        throw validation(`${at} must be one of ${[...TYPES].join(", ")}`);
      return;
    case "$size":
      conditionValue(arg, at, elements);
      return;
    case "$not":
      conditionValue(arg, at, scope);
      return;
    case "$elemMatch":
      if (!isObject(arg)) throw validation(`${at} must be an object`);
      if (isOperatorObject(arg)) conditionValue(arg, at, elements);
      else {
        // An element's `id` is not the visitor's: a cohort cannot be tested inside an array.
        const inside: CohortRef[] = [];
        conditionObject(arg, at, inside);
        if (inside.length > 0)
          throw validation(`${inside[0]!.at}: a cohort cannot be tested inside $elemMatch`);
      }
      return;
    default:
      throw validation(`${at} is not a supported condition operator${groupHint(op)}`);
  }
}

// ---- the cohorts a stored condition names ----
// The payload keeps them per flag, so that an evaluation looks up only those cohorts' members
// (cohorts.ts) and the server payload hashes only those (server-payload.ts).

/** Cohort id → the attributes it is tested on. */
export type CohortUse = Map<string, Set<CohortAttribute>>;

/** The cohorts a stored (already checked) condition names, added to `into`. */
export function collectCohorts(condition: unknown, into: CohortUse): void {
  if (!isObject(condition)) return;
  for (const [k, v] of Object.entries(condition)) {
    if (k === "$and" || k === "$or" || k === "$nor") {
      if (Array.isArray(v)) for (const sub of v) collectCohorts(sub, into);
    } else if (k === "$not") collectCohorts(v, into);
    else if ((COHORT_ATTRIBUTES as readonly string[]).includes(k))
      valueCohorts(v, k as CohortAttribute, into);
  }
}

function valueCohorts(v: Json, attribute: CohortAttribute, into: CohortUse): void {
  if (!isObject(v)) return;
  for (const [op, arg] of Object.entries(v)) {
    if (GROUP_OPS.has(op) && typeof arg === "string") {
      const uses = into.get(arg) ?? new Set();
      uses.add(attribute);
      into.set(arg, uses);
    } else if (op === "$not") valueCohorts(arg, attribute, into);
  }
}

// ---- attributes a caller sends for an evaluation ----

/** Attribute values are GrowthBook's evaluator's input; these bounds keep its work linear. */
const MAX_ATTRIBUTE_NODES = 2000;
const MAX_ATTRIBUTE_DEPTH = 8;
const MAX_ATTRIBUTE_ARRAY = 200;
/**
 * GrowthBook's version parser strips build metadata with /\+.*$/, which backtracks quadratically
 * on a string holding many `+` before a line break. Without a line break it is
 * linear, so only strings with one are capped.
 */
export const MAX_MULTILINE_ATTRIBUTE = 256;
const LINE_BREAK = /[\n\r\u2028\u2029]/;

export function checkAttributes(attributes: unknown, at: string): void {
  let nodes = 0;
  const walk = (v: unknown, here: string, depth: number) => {
    if (++nodes > MAX_ATTRIBUTE_NODES)
      throw validation(`${at} must hold at most ${MAX_ATTRIBUTE_NODES} values in all`);
    if (typeof v === "string") {
      if (v.length > MAX_MULTILINE_ATTRIBUTE && LINE_BREAK.test(v))
        throw validation(
          `${here}: a string with a line break must be at most ${MAX_MULTILINE_ATTRIBUTE} characters`,
        );
      return;
    }
    if (v === null || typeof v !== "object") return;
    if (depth > MAX_ATTRIBUTE_DEPTH)
      throw validation(`${here} is nested deeper than ${MAX_ATTRIBUTE_DEPTH} levels`);
    if (Array.isArray(v)) {
      if (v.length > MAX_ATTRIBUTE_ARRAY)
        throw validation(`${here} must hold at most ${MAX_ATTRIBUTE_ARRAY} items`);
      for (const [i, x] of v.entries()) walk(x, `${here}[${i}]`, depth + 1);
      return;
    }
    for (const [k, x] of Object.entries(v)) walk(x, `${here}.${k}`, depth + 1);
  };
  walk(attributes ?? {}, at, 1);
}
