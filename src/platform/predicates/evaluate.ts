import { memoize } from "../cache.js";
import { compileGlob } from "../glob.js";
import type { Predicate, PredicateEvent } from "./model.js";
import { urlMatches } from "./url.js";

/**
 * The one in-memory evaluator of the predicate language (model.ts): goal matching at ingest and
 * in recounts, and the report filter's tests of one value. Its answers are the engine's SQL's
 * (`analytics/engine/sql.ts`); a property test holds them together.
 */

const glob = memoize(1000, (pattern: string) => compileGlob(pattern, { caseInsensitive: true }));

/** A value's text as the engine's JSON functions give it; null for no value. */
export function textOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === "string") return value;
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function numberOf(p: Predicate, value: unknown): number {
  if (typeof value === "number") return value;
  // Number() of a blank string is 0: blank is no number.
  if (p.numericText && typeof value === "string" && value.trim() !== "") return Number(value);
  return Number.NaN;
}

/** Whether one value (undefined: missing) satisfies the predicate. */
export function holds(p: Predicate, value: unknown): boolean {
  switch (p.op) {
    case "set":
      return value !== undefined && value !== null;
    case "not_set":
      return value === undefined || value === null;
    case "is":
    case "is_not": {
      const text = textOf(value);
      const hit =
        text === null
          ? (p.absent ?? false) || (value === null && (p.nullValue ?? false))
          : p.values.includes(text);
      return p.op === "is" ? hit : !hit;
    }
    case "contains":
    case "not_contains": {
      const text = p.stringsOnly ? (typeof value === "string" ? value : null) : textOf(value);
      const hit = text?.toLowerCase().includes(p.values[0]!.toLowerCase()) ?? false;
      return p.op === "contains" ? hit : !hit;
    }
    case "matches": {
      const text = textOf(value);
      return text !== null && glob(p.values[0]!).test(text);
    }
    case "url":
      return typeof value === "string" && urlMatches(p.values[0]!, value);
    case "gt":
      return numberOf(p, value) > p.num!;
    case "gte":
      return numberOf(p, value) >= p.num!;
    case "lt":
      return numberOf(p, value) < p.num!;
    case "lte":
      return numberOf(p, value) <= p.num!;
  }
}

/** A property by its path of names; own properties only (never a prototype's). */
export function readPath(data: unknown, path: readonly string[]): unknown {
  let cur = data;
  for (const name of path) {
    if (cur === null || typeof cur !== "object" || !Object.hasOwn(cur, name)) return undefined;
    cur = (cur as Record<string, unknown>)[name];
  }
  return cur;
}

/** A URL's page: without its query string or fragment (cut at the first `?` or `#`). */
export const pageOf = (url: string): string => url.replace(/[?#][\s\S]*$/, "");

/** The value an event predicate reads. */
export function eventValue(p: Predicate, event: PredicateEvent): unknown {
  if (p.field === "type") return event.type;
  if (p.field === "url") return event.url;
  if (p.field === "page") return pageOf(event.url);
  if (p.field === "data") return readPath(event.data ?? {}, p.path ?? []);
  throw new Error(`not an event field: ${p.field}`);
}

/** Whether an event satisfies every predicate (all about the event). */
export function eventHolds(preds: readonly Predicate[], event: PredicateEvent): boolean {
  for (const p of preds) if (!holds(p, eventValue(p, event))) return false;
  return true;
}
