import { useQuery } from "@tanstack/react-query";
import { api, call } from "../../api/client";

export const fetchFlags = (experimentId?: string) =>
  call(api.GET("/api/flags", { params: { query: experimentId ? { experimentId } : {} } }));
export const fetchFlag = (key: string) => call(api.GET("/api/flags/{key}", { params: { path: { key } } }));

export type Flag = Awaited<ReturnType<typeof fetchFlag>>;
export type Rule = Flag["rules"][number];
export type ValueType = Flag["valueType"];
export type RuleType = Rule["type"];
export type Hashing = Flag["hashing"];

export const VALUE_TYPES: { value: ValueType; label: string }[] = [
  { value: "boolean", label: "Boolean (on/off)" },
  { value: "string", label: "String" },
  { value: "number", label: "Number" },
  { value: "json", label: "JSON (object or array)" },
];

export const HASHINGS: { value: Hashing; label: string }[] = [
  { value: "growthbook", label: "GrowthBook's (FNV-1a)" },
  { value: "posthog", label: "PostHog's (SHA-1)" },
];

/** Query keys: the list (per experiment filter), one flag, its history. */
export const flagKeys = {
  all: ["flags"] as const,
  list: (experimentId?: string) => ["flags", "list", experimentId ?? "all"] as const,
  one: (key: string) => ["flags", "one", key] as const,
  history: (key: string) => ["flags", "history", key] as const,
  settings: ["flags", "settings"] as const,
};

/** The project's SDK settings (local or remote evaluation): the settings card and the cohort picker. */
export const useFlagSettings = () =>
  useQuery({ queryKey: flagKeys.settings, queryFn: () => call(api.GET("/api/flag-settings")) });

export const useFlags = (experimentId?: string) =>
  useQuery({ queryKey: flagKeys.list(experimentId), queryFn: () => fetchFlags(experimentId) });

export const useFlag = (key: string | undefined) =>
  useQuery({ queryKey: flagKeys.one(key ?? ""), queryFn: () => fetchFlag(key!), enabled: Boolean(key) });

export const useFlagHistory = (key: string) =>
  useQuery({
    queryKey: flagKeys.history(key),
    queryFn: () => call(api.GET("/api/flags/{key}/history", { params: { path: { key } } })),
  });

// ---- values as text in forms ----

/** A value as the form shows it. */
export function valueText(type: ValueType, v: unknown): string {
  if (v === undefined || v === null) return type === "boolean" ? "false" : "";
  if (type === "json") return JSON.stringify(v, null, 2);
  return String(v);
}

/** The form's text as a value of the flag's type; throws a message naming `what`. */
export function parseValue(type: ValueType, text: string, what: string): unknown {
  switch (type) {
    case "boolean":
      return text === "true";
    case "string":
      return text;
    case "number": {
      const n = Number(text);
      if (text.trim() === "" || !Number.isFinite(n)) throw new Error(`${what} must be a number`);
      return n;
    }
    case "json":
      try {
        const v: unknown = JSON.parse(text);
        if (typeof v !== "object" || v === null) throw new Error();
        return v;
      } catch {
        throw new Error(`${what} must be a JSON object or array`);
      }
  }
}

/** A short, readable form of a value (lists and cells). */
export function shortValue(v: unknown): string {
  const s = typeof v === "string" ? `"${v}"` : JSON.stringify(v);
  return s.length > 40 ? `${s.slice(0, 39)}…` : s;
}

/** Attributes suggested by the pickers: GrowthBook's usual ones, plus those the project's rules use. */
export const COMMON_ATTRIBUTES = [
  "id",
  "email",
  "country",
  "plan",
  "appVersion",
  "beta",
  "url",
  "browser",
  "deviceType",
];

export function attributesIn(flags: Flag[] | undefined): string[] {
  const out = new Set(COMMON_ATTRIBUTES);
  const walk = (c: unknown) => {
    if (!c || typeof c !== "object") return;
    for (const [k, v] of Object.entries(c as Record<string, unknown>)) {
      if (!k.startsWith("$")) out.add(k);
      if (Array.isArray(v)) for (const x of v) walk(x);
      else if (k === "$not" || k === "$and" || k === "$or" || k === "$nor") walk(v);
    }
  };
  for (const f of flags ?? []) for (const r of f.rules) walk(r.condition);
  return [...out];
}

export const RULE_LABELS: Record<RuleType, string> = {
  force: "Force a value",
  rollout: "Percentage rollout",
  experiment: "Experiment",
};
