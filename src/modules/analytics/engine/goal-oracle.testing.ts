/**
 * The conversion-goal matcher as it was before goals spoke the shared predicate language
 * (platform/predicates), frozen as the oracle of the property test that the language's one
 * evaluator and the engine's SQL answer as it did. Test code only: nothing in the server uses it.
 */
import type { ConditionT } from "../../goals/service.js";
import { memoize } from "../../../platform/cache.js";
import { compileGlob, type Glob } from "../../../platform/glob.js";

interface ConversionGoalDef {
  eventType: string;
  urlPattern?: string | null;
  conditions?: Record<string, ConditionT> | null;
}
interface MatchableEvent {
  type: string;
  url: string;
  data: Record<string, unknown> | null | undefined;
}

/**
 * `*` matches any run of characters (slashes included); everything else is literal, compared
 * case-insensitively. Anchored. Linear in pattern and URL (platform/glob.ts): the pattern runs on
 * every ingested event, and anyone with a page's public key chooses the URL.
 */
const compiledGlob = memoize(
  5000,
  (pattern: string): Glob => compileGlob(pattern, { caseInsensitive: true }),
);

const trimSlash = (s: string) => (s.length > 1 && s.endsWith("/") ? s.slice(0, -1) : s);

/**
 * A pattern starting with "/" is matched against the URL's path (with or without the query);
 * a pattern with a scheme against the whole URL; any other against host + path. A trailing
 * slash is not significant.
 */
function urlMatches(pattern: string, url: string): boolean {
  const re = compiledGlob(trimSlash(pattern));
  let u: URL | null = null;
  try {
    u = new URL(url);
  } catch {
    return re.test(trimSlash(url));
  }
  const path = trimSlash(u.pathname);
  if (pattern.startsWith("/")) return re.test(path) || re.test(path + u.search);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(pattern))
    return re.test(trimSlash(url)) || re.test(`${u.origin}${path}`);
  return re.test(u.host + path) || re.test(u.host + path + u.search);
}

function readPath(data: Record<string, unknown>, path: string): unknown {
  let cur: unknown = data;
  for (const part of path.split(".")) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<string, unknown>)[part];
  }
  return cur;
}

// Numbers and numeric strings compare equal ("49" = 49): form fields arrive as strings.
const looseEqual = (a: unknown, b: unknown) =>
  a === b || (a !== null && b !== null && a !== undefined && String(a) === String(b));

function conditionHolds(actual: unknown, cond: ConditionT): boolean {
  if (cond === null || typeof cond !== "object") return looseEqual(actual, cond);
  const n =
    typeof actual === "number"
      ? actual
      : typeof actual === "string" && actual.trim() !== ""
        ? Number(actual)
        : Number.NaN;
  if (cond.exists !== undefined && (actual !== undefined && actual !== null) !== cond.exists) return false;
  if (cond.eq !== undefined && !looseEqual(actual, cond.eq)) return false;
  if (cond.neq !== undefined && looseEqual(actual, cond.neq)) return false;
  if (cond.gt !== undefined && !(n > cond.gt)) return false;
  if (cond.gte !== undefined && !(n >= cond.gte)) return false;
  if (cond.lt !== undefined && !(n < cond.lt)) return false;
  if (cond.lte !== undefined && !(n <= cond.lte)) return false;
  if (
    cond.contains !== undefined &&
    !(typeof actual === "string" && actual.toLowerCase().includes(cond.contains.toLowerCase()))
  )
    return false;
  if (cond.in !== undefined && !cond.in.some((v) => looseEqual(actual, v))) return false;
  return true;
}

/** Whether an event counts as a conversion for a conversion goal: type, URL pattern and every condition. */
export function oracleMatches(goal: ConversionGoalDef, event: MatchableEvent): boolean {
  if (goal.eventType !== event.type) return false;
  if (goal.urlPattern && !urlMatches(goal.urlPattern, event.url)) return false;
  if (goal.conditions) {
    for (const [path, cond] of Object.entries(goal.conditions)) {
      if (!conditionHolds(readPath(event.data ?? {}, path), cond)) return false;
    }
  }
  return true;
}
