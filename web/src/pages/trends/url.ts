/**
 * The trend shown, as the page keeps it in its URL (`?series=[…]&interval=day&formula=…`) so a
 * reload or a shared link shows the same trend. Pure: no React, tested in test/web/trends.test.ts.
 */

export const MEASURES = [
  { value: "total", label: "Total events" },
  { value: "unique_people", label: "Unique people" },
  { value: "dau", label: "Daily active people" },
  { value: "wau", label: "Weekly active people" },
  { value: "mau", label: "Monthly active people" },
  { value: "sum", label: "Sum of a property" },
  { value: "avg", label: "Average of a property" },
  { value: "min", label: "Minimum of a property" },
  { value: "max", label: "Maximum of a property" },
  { value: "median", label: "Median of a property" },
  { value: "p90", label: "90th percentile of a property" },
] as const;
export type Measure = (typeof MEASURES)[number]["value"];
export const NUMERIC = new Set<Measure>(["sum", "avg", "min", "max", "median", "p90"]);

export const INTERVALS = ["hour", "day", "week", "month"] as const;
export type Interval = (typeof INTERVALS)[number];

export const VIEWS = ["line", "bar", "number", "table"] as const;
export type View = (typeof VIEWS)[number];

export const MAX_SERIES = 10;
export const LETTERS = "ABCDEFGHIJ";

export interface SeriesDraft {
  event: string;
  measure: Measure;
  /** the event property holding the number (numeric measures only) */
  property: string;
  name: string;
}

export interface TrendShown {
  series: SeriesDraft[];
  interval: Interval;
  /** `channel`, …, or `event.<property>`; "" for none */
  breakdown: string;
  limit: number;
  formula: string;
  compare: boolean;
}

export const newSeries = (event = ""): SeriesDraft => ({ event, measure: "total", property: "", name: "" });

export const START: TrendShown = {
  series: [newSeries("pageview")],
  interval: "day",
  breakdown: "",
  limit: 10,
  formula: "",
  compare: false,
};

/** A series as the API takes it (and as the URL keeps it). */
interface ApiSeries {
  event: string;
  measure?: Measure;
  property?: string;
  name?: string;
}

const toApi = (s: SeriesDraft): ApiSeries => ({
  event: s.event.trim(),
  ...(s.measure !== "total" ? { measure: s.measure } : {}),
  ...(NUMERIC.has(s.measure) && s.property.trim() ? { property: s.property.trim() } : {}),
  ...(s.name.trim() ? { name: s.name.trim() } : {}),
});

const isMeasure = (m: unknown): m is Measure => MEASURES.some((x) => x.value === m);

function parseSeries(text: string | null): SeriesDraft[] | null {
  if (!text) return null;
  try {
    const v = JSON.parse(text) as unknown;
    if (!Array.isArray(v)) return null;
    const out = v
      .filter((s): s is ApiSeries => !!s && typeof s === "object" && typeof s.event === "string")
      .slice(0, MAX_SERIES)
      .map((s) => ({
        event: s.event,
        measure: isMeasure(s.measure) ? s.measure : "total",
        property: typeof s.property === "string" ? s.property : "",
        name: typeof s.name === "string" ? s.name : "",
      }));
    return out.length > 0 ? out : null;
  } catch {
    return null;
  }
}

/** The trend in the URL; null until one was shown. */
export function readTrend(params: URLSearchParams): TrendShown | null {
  const series = parseSeries(params.get("series"));
  if (!series) return null;
  const interval = INTERVALS.find((i) => i === params.get("interval")) ?? "day";
  const limit = Number(params.get("top") ?? "10");
  return {
    series,
    interval,
    breakdown: params.get("breakdown") ?? "",
    limit: Number.isInteger(limit) && limit >= 1 && limit <= 50 ? limit : 10,
    formula: params.get("formula") ?? "",
    compare: params.get("compare") === "1",
  };
}

/** `prev` with the trend's own parameters replaced by `next`'s (the period, filter, goal and view stay). */
export function writeTrend(prev: URLSearchParams, next: TrendShown): URLSearchParams {
  const out = new URLSearchParams(prev);
  out.set("series", JSON.stringify(next.series.map(toApi)));
  out.set("interval", next.interval);
  const set = (key: string, value: string) => (value ? out.set(key, value) : out.delete(key));
  set("breakdown", next.breakdown.trim());
  set("top", next.breakdown.trim() && next.limit !== 10 ? String(next.limit) : "");
  set("formula", next.formula.trim());
  set("compare", next.compare ? "1" : "");
  return out;
}

export const readView = (params: URLSearchParams): View =>
  VIEWS.find((v) => v === params.get("view")) ?? "line";

/** The API's request for the trend shown: also the settings of a saved trends insight. */
export function trendsBody(
  shown: TrendShown,
  period: { period: string; from?: string; to?: string },
  filter: unknown[],
  goal: string | undefined,
) {
  const breakdown = shown.breakdown.trim();
  const formula = shown.formula.trim();
  return {
    ...period,
    series: shown.series.map(toApi),
    interval: shown.interval,
    ...(filter.length > 0 ? { filter } : {}),
    ...(goal ? { goal } : {}),
    ...(breakdown ? { breakdown: { property: breakdown, limit: shown.limit } } : {}),
    ...(formula ? { formulas: [{ expression: formula }] } : {}),
    ...(shown.compare ? { compare: true } : {}),
  };
}

/** A saved insight's settings as this page's URL parameters (for "Open" on the dashboards page). */
export function trendParamsOf(settings: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = { series: JSON.stringify(settings.series ?? []) };
  if (typeof settings.interval === "string") out.interval = settings.interval;
  const b = settings.breakdown as { property?: string; limit?: number } | undefined;
  if (b?.property) {
    out.breakdown = b.property;
    if (b.limit && b.limit !== 10) out.top = String(b.limit);
  }
  const f = settings.formulas as { expression?: string }[] | undefined;
  if (f?.[0]?.expression) out.formula = f[0].expression;
  if (settings.compare === true) out.compare = "1";
  if (typeof settings.goal === "string") out.goal = settings.goal;
  return out;
}
