import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { DbOrTrx } from "../../../platform/db/index.js";
import {
  type GoalRef,
  convertersIn,
  goalConversionsByDay,
  periodVisitorIds,
  populationRates,
} from "./conversion-model.js";
import { periodVisitors } from "./converted.js";
import { VisitorSketch, type VisitorsEstimate, visitorsEstimate } from "../ingest/hll.js";
import type { Period } from "./period.js";
import { ALL_CHANNELS, DAY_MS } from "../ingest/rollup-store.js";
import { sketchesFor, weekOf, weekStart } from "../ingest/sketches.js";
import "../tables.js";

export type Interval = "day" | "week";

export interface TimeseriesPoint {
  date: string;
  visitors: number;
  /** present when `visitors` is an estimate */
  visitorsEstimate?: VisitorsEstimate;
  leads: number;
  conversions: number;
  revenue: number;
}

/** The whole period: distinct visitors and people over it (not sums of buckets), counters summed. */
export interface TimeseriesTotals {
  visitors: number;
  /** present when `visitors` is an estimate */
  visitorsEstimate?: VisitorsEstimate;
  convertedVisitors: number;
  leads: number;
  conversions: number;
  revenue: number;
}

export interface Timeseries {
  goal: GoalRef | null;
  interval: Interval;
  period: { from: string; to: string };
  points: TimeseriesPoint[];
  totals: TimeseriesTotals;
}

const round6 = (x: number) => Math.round(x * 1e6) / 1e6 + 0;

/** Counters summed over the buckets; visitors and people as given (distinct over the period). */
export function totalsOf(
  points: TimeseriesPoint[],
  visitors: number,
  convertedVisitors: number,
): TimeseriesTotals {
  let leads = 0;
  let conversions = 0;
  let revenue = 0;
  for (const p of points) {
    leads += p.leads;
    conversions += p.conversions;
    revenue += p.revenue;
  }
  return { visitors, convertedVisitors, leads, conversions, revenue: round6(revenue) };
}

const isoDay = (day: number): string => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** Buckets covering the period: days, or Monday-based UTC weeks cut at the period's edges. */
function buckets(period: Period, interval: Interval): { from: number; to: number }[] {
  const out: { from: number; to: number }[] = [];
  for (let day = period.fromDay; day <= period.toDay; ) {
    const end = interval === "day" ? day : Math.min(weekStart(weekOf(day)) + 6, period.toDay);
    out.push({ from: day, to: end });
    day = end + 1;
  }
  return out;
}

/**
 * Per-bucket totals from the rollups only (never the events table): counters are summed per day
 * over channels in SQL; visitors are the bucket's distinct visitors, the union of its days'
 * all-channel sketches (a full week reads its weekly sketch). Every bucket is present, zero-filled.
 */
export async function analyticsTimeseries(
  db: DbOrTrx,
  project: ProjectRef,
  period: Period,
  interval: Interval,
  /** a filter on channels alone (rollup path): only these channels, visitors their union */
  only?: Set<string>,
  goal: GoalRef | null = null,
): Promise<Timeseries> {
  const channels = only ? [...only] : null;
  const range = { from: period.fromDay * DAY_MS, to: (period.toDay + 1) * DAY_MS };
  const ofGoal = goal ? await goalConversionsByDay(db, project, range, goal, only) : null;
  const counters = await db
    .selectFrom("analytics_daily")
    .select((eb) => [
      "day",
      eb.fn.sum<number>("conversions").as("conversions"),
      eb.fn.sum<number>("leads").as("leads"),
      eb.fn.sum<number>("revenue").as("revenue"),
    ])
    .where("project_id", "=", project.id)
    .where("day", ">=", period.fromDay)
    .where("day", "<=", period.toDay)
    .where("channel", "!=", ALL_CHANNELS)
    .$if(channels !== null, (q) => q.where("channel", "in", channels!))
    .groupBy("day")
    .execute();
  const byDay = new Map(counters.map((r) => [Number(r.day), r]));

  const list = buckets(period, interval);
  // A day's sketches: one row per day on SQLite, one per process's shard on PostgreSQL.
  let dailySketches: Map<number, string[]> | null = null;
  if (interval === "day") {
    dailySketches = new Map();
    const rows = await db
      .selectFrom("analytics_daily")
      .select(["day", "visitors_sketch"])
      .where("project_id", "=", project.id)
      .where("day", ">=", period.fromDay)
      .where("day", "<=", period.toDay)
      .where("channel", channels ? "in" : "=", channels ?? ALL_CHANNELS)
      .execute();
    for (const r of rows) {
      const list = dailySketches.get(Number(r.day));
      if (list) list.push(r.visitors_sketch);
      else dailySketches.set(Number(r.day), [r.visitors_sketch]);
    }
  }

  const points: TimeseriesPoint[] = [];
  for (const b of list) {
    let leads = 0;
    let conversions = 0;
    let revenue = 0;
    for (let day = b.from; day <= b.to; day++) {
      const c = byDay.get(day);
      if (c) leads += Number(c.leads);
      const counted = ofGoal ? ofGoal.get(day) : c;
      if (!counted) continue;
      conversions += Number(counted.conversions);
      revenue += Number(counted.revenue);
    }
    const sketch = VisitorSketch.union();
    if (dailySketches) {
      for (const text of dailySketches.get(b.from) ?? []) sketch.mergeText(text);
    } else {
      for (const r of await sketchesFor(db, project.id, b.from, b.to, channels ? undefined : ALL_CHANNELS))
        if (!channels || only!.has(r.channel)) sketch.mergeText(r.visitors_sketch);
    }
    // Revenue sums refunds too; rounding keeps float noise (0.1 + 0.2) out of the wire.
    points.push({
      date: isoDay(b.from),
      visitors: sketch.count(),
      ...visitorsEstimate(sketch),
      leads,
      conversions,
      revenue: round6(revenue),
    });
  }
  // A visitor seen on several days is one visitor of the period: the same union of sketches as
  // the summary's, never a sum of the buckets.
  const all = await sketchesFor(
    db,
    project.id,
    period.fromDay,
    period.toDay,
    channels ? undefined : ALL_CHANNELS,
  );
  const population = await periodVisitorIds(db, project, range, only);
  const converted = await populationRates(
    db,
    project,
    population,
    await convertersIn(db, project, range, goal),
  );
  const visitors = periodVisitors(all, only);
  return {
    goal,
    interval,
    period: { from: period.from, to: period.to },
    points,
    totals: { ...totalsOf(points, visitors.count(), converted.converted), ...visitorsEstimate(visitors) },
  };
}
