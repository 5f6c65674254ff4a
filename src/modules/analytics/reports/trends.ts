import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { ReadDeps } from "../../../platform/deps.js";
import { validation } from "../../../platform/errors.js";
import { resolveGoal } from "./conversion-model.js";
import { EngineQuery } from "../engine/sql.js";
import {
  ACTIVE_DAYS,
  OTHER_KEY,
  type TrendSeriesSql,
  breakdownValuesSql,
  trendSeriesSql,
} from "../engine/trends-sql.js";
import { type Condition, parseFilter } from "../filters/filter.js";
import { type Period, resolvePeriod } from "./period.js";
import { DAY_MS } from "../ingest/rollup-store.js";
import { type Formula, evaluate, parseFormula } from "./trend-formula.js";
import {
  NUMERIC_MEASURES,
  type TrendInterval,
  type TrendLineT,
  type TrendMeasure,
  type TrendsBodyT,
  type TrendsT,
} from "./trends-schema.js";

/**
 * Trends (docs/decisions/identity-analytics.md, "Trends"): each series' measure per UTC bucket
 * over the period, optionally per breakdown value (the top N, the rest as "(other)"), formulas
 * over the series, and the previous period of the same length. One query a series on the
 * analytics engine (engine/trends-sql.ts), a read task; the request is checked here first.
 */

/** Buckets a trend may have: 31 days of hours. */
export const MAX_BUCKETS = 744;
/** Points an answer may hold (buckets × series × breakdown values). */
const MAX_POINTS = 100_000;

const LETTERS = "ABCDEFGHIJ";

export interface TrendsRequest {
  period: Period;
  interval: TrendInterval;
  series: (TrendSeriesSql & { label: string; letter: string })[];
  goal?: string;
  breakdown: { key: string; limit: number } | null;
  formulas: { label: string; letter: string; f: Formula }[];
  compare: boolean;
}

const HOUR_MS = 3_600_000;

/** The buckets' starts (epoch ms) of [from, to): the first cut at `from`. */
export function bucketsOf(interval: TrendInterval, from: number, to: number): number[] {
  const out: number[] = [];
  let at = from;
  while (at < to) {
    out.push(at);
    if (interval === "hour") at += HOUR_MS;
    else if (interval === "day") at += DAY_MS;
    else if (interval === "week") at = (Math.floor((Math.floor(at / DAY_MS) + 3) / 7) * 7 - 3 + 7) * DAY_MS;
    else {
      const d = new Date(at);
      at = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
    }
    if (out.length > MAX_BUCKETS) break;
  }
  return out;
}

const rangeOf = (p: Period) => ({ from: p.fromDay * DAY_MS, to: (p.toDay + 1) * DAY_MS });

/** The body checked beyond its schema: every 400 a trend can get, before anything is read. */
export function planTrends(b: TrendsBodyT, now = Date.now()): TrendsRequest {
  const period = resolvePeriod({ period: b.period, from: b.from, to: b.to }, now, "body");
  const interval = b.interval ?? "day";
  const filter = parseFilter(b.filter, "body.filter");
  const series = b.series.map((s, i) => {
    const at = `body.series[${i}]`;
    const measure: TrendMeasure = s.measure ?? "total";
    if (NUMERIC_MEASURES.has(measure) && s.property === undefined)
      throw validation(`${at}.property is required for the measure ${measure} (the number to ${measure})`);
    if (ACTIVE_DAYS[measure] && interval !== "day")
      throw validation(
        `${at}.measure ${measure} counts people active in the days up to each day: use interval day (or unique_people)`,
      );
    const own: Condition[] = parseFilter(s.conditions, `${at}.conditions`).map((c) => ({
      ...c,
      index: c.index + filter.length,
    }));
    const numeric = NUMERIC_MEASURES.has(measure);
    const label =
      s.name ??
      (measure === "total" ? s.event : `${s.event} (${measure}${numeric ? ` of ${s.property}` : ""})`);
    return {
      event: s.event,
      measure,
      ...(numeric ? { property: s.property } : {}),
      conds: [...filter, ...own],
      label,
      letter: LETTERS[i]!,
    };
  });
  const { from, to } = rangeOf(period);
  const buckets = bucketsOf(interval, from, to).length;
  if (buckets > MAX_BUCKETS)
    throw validation(
      `body.interval: ${interval} gives more than ${MAX_BUCKETS} buckets over this period (hour: at most 31 days); choose a longer interval or a shorter period`,
    );
  const groups = b.breakdown ? (b.breakdown.limit ?? 10) + 1 : 1;
  const lines = (series.length + (b.formulas?.length ?? 0)) * groups * (b.compare ? 2 : 1);
  if (buckets * lines > MAX_POINTS)
    throw validation(
      `body: ${buckets * lines} points is more than ${MAX_POINTS}; use fewer series, a smaller breakdown limit or a longer interval`,
    );
  const letters = series.map((s) => s.letter);
  const formulas = (b.formulas ?? []).map((f, i) => ({
    label: f.name ?? f.expression,
    letter: `F${i + 1}`,
    f: parseFormula(f.expression, letters, `body.formulas[${i}].expression`),
  }));
  return {
    period,
    interval,
    series,
    ...(b.goal !== undefined ? { goal: b.goal } : {}),
    breakdown: b.breakdown ? { key: b.breakdown.property, limit: b.breakdown.limit ?? 10 } : null,
    formulas,
    compare: b.compare === true,
  };
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6 + 0;
const iso = (ms: number) => new Date(ms).toISOString();
const isoDay = (day: number) => iso(day * DAY_MS).slice(0, 10);

type Points = { bucket: string; value: number | null }[];
interface Line {
  data: Points;
  total: number | null;
}

/** A measure with nothing to measure: zero for counts and sums, null for the rest. */
const emptyValue = (m: TrendMeasure) =>
  m === "total" || m === "unique_people" || m === "sum" || ACTIVE_DAYS[m] ? 0 : null;

export async function analyticsTrends(
  deps: ReadDeps,
  project: ProjectRef,
  r: TrendsRequest,
): Promise<TrendsT> {
  const goal = await resolveGoal(deps.db, project, r.goal, "body.goal");
  const range = rangeOf(r.period);
  const previous: Period | null = r.compare
    ? (() => {
        const days = r.period.toDay - r.period.fromDay + 1;
        const fromDay = r.period.fromDay - days;
        return {
          fromDay,
          toDay: r.period.fromDay - 1,
          from: isoDay(fromDay),
          to: isoDay(r.period.fromDay - 1),
        };
      })()
    : null;
  // The breakdown's values: the most events of all series in the period, the same for every series.
  let groups: (string | null)[] = [null];
  let values: string[] = [];
  if (r.breakdown) {
    const q = new EngineQuery();
    const text = await breakdownValuesSql(
      q,
      deps,
      project,
      r.series,
      range,
      goal,
      r.breakdown,
      r.breakdown.limit,
    );
    const rows = await deps.engine.query<{ g: string; n: number }>(...q.bound(text));
    values = rows.slice(0, r.breakdown.limit).map((row) => String(row.g));
    groups = rows.length > r.breakdown.limit ? [...values, OTHER_KEY] : values;
  }
  const run = async (s: TrendSeriesSql, p: Period): Promise<Map<string | null, Line>> => {
    const rr = rangeOf(p);
    const q = new EngineQuery();
    const text = await trendSeriesSql(
      q,
      deps,
      project,
      s,
      rr,
      r.interval,
      goal,
      r.breakdown ? { sql: r.breakdown, values } : null,
    );
    const rows = await deps.engine.query<{ b: number | null; g: string | null; v: number | null }>(
      ...q.bound(text),
    );
    const empty = emptyValue(s.measure);
    const cells = new Map<string, number | null>();
    const key = (b: number | "", g: string | null) => `${b}\u0000${g ?? ""}`;
    for (const row of rows)
      cells.set(
        key(row.b === null ? "" : Number(row.b), row.g),
        row.v === null ? null : round6(Number(row.v)),
      );
    const get = (b: number | "", g: string | null) => cells.get(key(b, g)) ?? empty;
    const buckets = bucketsOf(r.interval, rr.from, rr.to);
    // Active people come as the days their count changes: each holds until the next.
    if (ACTIVE_DAYS[s.measure])
      for (const g of groups) {
        const steps = rows
          .filter((row) => row.b !== null && row.g === g && Number(row.b) <= rr.to)
          .map((row) => [Number(row.b), Number(row.v)] as const)
          .sort((x, y) => x[0] - y[0]);
        let at = 0;
        let value = 0;
        for (const b of buckets) {
          while (at < steps.length && steps[at]![0] <= b) value = steps[at++]![1];
          cells.set(key(b, g), value);
        }
      }
    return new Map(
      groups.map((g) => [
        g,
        { data: buckets.map((b) => ({ bucket: iso(b), value: get(b, g) })), total: get("", g) },
      ]),
    );
  };
  const series: TrendLineT[] = [];
  const byLetter = new Map<string, Map<string | null, { now: Line; before: Line | null }>>();
  // Every series' queries at once, on the engine's threads.
  const answered = await Promise.all(
    r.series.map((s) => Promise.all([run(s, r.period), previous ? run(s, previous) : null])),
  );
  for (const [i, s] of r.series.entries()) {
    const [now, before] = answered[i]!;
    const lines = new Map<string | null, { now: Line; before: Line | null }>();
    for (const g of groups) {
      const line = { now: now.get(g)!, before: before?.get(g) ?? null };
      lines.set(g, line);
      series.push(lineOf(s.label, s.letter, g, line));
    }
    byLetter.set(s.letter, lines);
  }
  const formulas: TrendLineT[] = [];
  for (const f of r.formulas)
    for (const g of groups) {
      const of = (pick: (l: { now: Line; before: Line | null }) => Line | null) => {
        const base = pick(byLetter.get(r.series[0]!.letter)!.get(g)!)!;
        const at = (i: number | null) => (letter: string) => {
          const line = pick(byLetter.get(letter)!.get(g)!)!;
          return i === null ? line.total : line.data[i]!.value;
        };
        const value = (x: number | null) => (x === null ? null : round6(x));
        return {
          data: base.data.map((p, i) => ({ bucket: p.bucket, value: value(evaluate(f.f, at(i))) })),
          total: value(evaluate(f.f, at(null))),
        };
      };
      formulas.push(
        lineOf(f.label, f.letter, g, {
          now: of((l) => l.now),
          before: previous ? of((l) => l.before) : null,
        }),
      );
    }
  return {
    interval: r.interval,
    period: { from: r.period.from, to: r.period.to },
    ...(previous ? { compare: { from: previous.from, to: previous.to } } : {}),
    series,
    formulas,
  };
}

const lineOf = (
  label: string,
  letter: string,
  g: string | null,
  l: { now: Line; before: Line | null },
): TrendLineT => ({
  label,
  letter,
  ...(g !== null ? { breakdownValue: g } : {}),
  data: l.now.data,
  total: l.now.total,
  ...(l.before ? { compare: { data: l.before.data, total: l.before.total } } : {}),
});
