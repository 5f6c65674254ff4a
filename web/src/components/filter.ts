import { useSearchParams } from "react-router";
import { valueLabel } from "./channels";

/** One condition of the report filter (the API's `Filter`: docs/decisions/identity-analytics.md). */
export type FilterOp =
  | "is"
  | "is_not"
  | "contains"
  | "not_contains"
  | "matches"
  | "set"
  | "not_set"
  | "gt"
  | "lt";
export interface Condition {
  key: string;
  op: FilterOp;
  value?: string | string[] | number | boolean;
  /**
   * The editor's draft only, never sent: text typed in a several-values box and not yet a chip.
   * Kept here rather than made a chip on blur, which would move the Apply button under the click.
   */
  pending?: string;
}

export { splitValues, valuesOf, withoutPending } from "./filter-values";

export type KeyKind = "session" | "event" | "page" | "eventProperty" | "leadProperty" | "cohort";

/** The attributes a condition can look at, in the picker's order. */
export const ATTRIBUTES: { value: string; label: string; kind: KeyKind }[] = [
  { value: "channel", label: "Channel", kind: "session" },
  { value: "source", label: "Source", kind: "session" },
  { value: "campaign", label: "Campaign", kind: "session" },
  { value: "landing_page", label: "Landing page", kind: "session" },
  { value: "referrer_domain", label: "Referrer domain", kind: "session" },
  { value: "device", label: "Device", kind: "session" },
  { value: "browser", label: "Browser", kind: "session" },
  { value: "os", label: "OS", kind: "session" },
  { value: "utm_source", label: "UTM source", kind: "session" },
  { value: "utm_medium", label: "UTM medium", kind: "session" },
  { value: "utm_campaign", label: "UTM campaign", kind: "session" },
  { value: "utm_term", label: "UTM term", kind: "session" },
  { value: "utm_content", label: "UTM content", kind: "session" },
  { value: "country", label: "Country", kind: "session" },
  { value: "event", label: "Event name", kind: "event" },
  { value: "page", label: "Page URL", kind: "page" },
  { value: "page_no_query", label: "Page (any query string)", kind: "page" },
  { value: "event.", label: "Event property…", kind: "eventProperty" },
  { value: "lead.", label: "Lead property…", kind: "leadProperty" },
  { value: "cohort", label: "Cohort", kind: "cohort" },
];

export const kindOf = (key: string): KeyKind =>
  key.startsWith("event.")
    ? "eventProperty"
    : key.startsWith("lead.")
      ? "leadProperty"
      : (ATTRIBUTES.find((a) => a.value === key)?.kind ?? "session");

export const OP_LABELS: Record<FilterOp, string> = {
  is: "is",
  is_not: "is not",
  contains: "contains",
  not_contains: "does not contain",
  matches: "matches (* wildcard)",
  set: "is set",
  not_set: "is not set",
  gt: "greater than",
  lt: "less than",
};

/** The operators that make sense for a kind of attribute. */
export function opsFor(kind: KeyKind): FilterOp[] {
  if (kind === "cohort") return ["is", "is_not"];
  if (kind === "eventProperty" || kind === "leadProperty")
    return ["is", "is_not", "contains", "not_contains", "matches", "set", "not_set", "gt", "lt"];
  if (kind === "page") return ["matches", "is", "is_not", "contains", "not_contains"];
  return ["is", "is_not", "contains", "not_contains", "matches", "set", "not_set"];
}

export const needsValue = (op: FilterOp) => op !== "set" && op !== "not_set";

/** A condition in words: `channel is email`. */
export function describeCondition(c: Condition, names?: Map<string, string>): string {
  const label =
    c.key.startsWith("event.") || c.key.startsWith("lead.")
      ? c.key
      : (ATTRIBUTES.find((a) => a.value === c.key)?.label ?? c.key);
  const one = (v: string) => names?.get(v) ?? valueLabel(c.key, v);
  const value = Array.isArray(c.value)
    ? c.value.map(one).join(" or ")
    : c.value === undefined
      ? ""
      : one(String(c.value));
  return `${label} ${OP_LABELS[c.op]}${needsValue(c.op) ? ` ${value}` : ""}`;
}

/** The filter as the API's query parameter (compact JSON), or undefined when empty. */
export const filterParam = (conditions: Condition[]) =>
  conditions.length > 0 ? JSON.stringify(conditions) : undefined;

function parse(text: string | null): Condition[] {
  if (!text) return [];
  try {
    const v = JSON.parse(text) as unknown;
    return Array.isArray(v)
      ? (v.filter((c) => c && typeof c === "object" && "key" in c && "op" in c) as Condition[])
      : [];
  } catch {
    return [];
  }
}

/** The page's filter, kept in the URL (`?filter=[…]`) so a link shares the filtered view. */
export function useFilter() {
  const [params, setParams] = useSearchParams();
  const text = params.get("filter");
  const conditions = parse(text);
  const set = (next: Condition[]) =>
    setParams((prev) => {
      const out = new URLSearchParams(prev);
      if (next.length === 0) out.delete("filter");
      else out.set("filter", JSON.stringify(next));
      return out;
    });
  return {
    conditions,
    /** for query keys and requests */
    param: filterParam(conditions),
    set,
    /** Adds `key is value` (a clicked row), replacing a condition on the same key. */
    add: (key: string, value: string) =>
      set([...conditions.filter((c) => c.key !== key), { key, op: "is" as const, value }].slice(-10)),
    remove: (i: number) => set(conditions.filter((_, k) => k !== i)),
  };
}
