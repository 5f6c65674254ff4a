import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { DbOrTrx } from "../../../platform/db/index.js";
import {
  type BasisRow,
  type GoalRef,
  convertersIn,
  goalConversionsByFirstTouch,
  goalConversionsByType,
  periodVisitorIds,
  populationRates,
  rateOf,
  visitorsWhoSent,
} from "./conversion-model.js";
import type { BreakdownDimension } from "../ingest/dimensions.js";
import { VisitorSketch, type VisitorsEstimate, visitorsEstimate } from "../ingest/hll.js";
import type { Period } from "./period.js";
import { ALL_CHANNELS, DAY_MS } from "../ingest/rollup-store.js";
import { sketchesFor, weekCover } from "../ingest/sketches.js";
import "../tables.js";

export interface BreakdownRow {
  key: string;
  visitors: number;
  /** present when `visitors` is an estimate */
  visitorsEstimate?: VisitorsEstimate;
  conversions: number;
  /** the period's visitors whose person's first touch had this value */
  firstTouchVisitors: number;
  /** those of them who converted */
  convertedVisitors: number;
  /** convertedVisitors ÷ firstTouchVisitors */
  conversionRate: number;
  revenue: number;
}

export interface Breakdown {
  goal: GoalRef | null;
  by: BreakdownDimension;
  rows: BreakdownRow[];
  period: { from: string; to: string };
}

interface Accumulator {
  sketch: VisitorSketch;
  conversions: number;
  revenue: number;
}

/**
 * Reads only rollups, like the summary: per key, one row per full week and per edge day (counters
 * summed, visitor sketches merged). `channel` is the summary's own rollup (the same figures as its
 * topChannels); every other dimension has its own rows (breakdown-store.ts).
 */
export async function analyticsBreakdown(
  db: DbOrTrx,
  project: ProjectRef,
  by: BreakdownDimension,
  period: Period,
  limit: number,
  goal: GoalRef | null = null,
): Promise<Breakdown> {
  const range = { from: period.fromDay * DAY_MS, to: (period.toDay + 1) * DAY_MS };
  const keys = new Map<string, Accumulator>();
  const at = (key: string): Accumulator => {
    let a = keys.get(key);
    if (!a) {
      a = { sketch: VisitorSketch.union(), conversions: 0, revenue: 0 };
      keys.set(key, a);
    }
    return a;
  };
  if (by === "channel") {
    const counters = await db
      .selectFrom("analytics_daily")
      .select((eb) => [
        "channel as key",
        eb.fn.sum<number>("conversions").as("conversions"),
        eb.fn.sum<number>("revenue").as("revenue"),
      ])
      .where("project_id", "=", project.id)
      .where("day", ">=", period.fromDay)
      .where("day", "<=", period.toDay)
      .where("channel", "!=", ALL_CHANNELS)
      .groupBy("channel")
      .execute();
    addCounters(counters, at);
    for (const r of await sketchesFor(db, project.id, period.fromDay, period.toDay))
      if (r.channel !== ALL_CHANNELS) at(r.channel).sketch.mergeText(r.visitors_sketch);
  } else {
    // Full weeks from the weekly rows, the edge days from the daily ones: counters and sketches
    // come from the same rows (~18 per key for 90 days).
    const add = (r: {
      key: string;
      conversions: number | string;
      revenue: number | string;
      visitors_sketch: string;
    }) => {
      const a = at(r.key);
      a.conversions += Number(r.conversions);
      a.revenue += Number(r.revenue);
      a.sketch.mergeText(r.visitors_sketch);
    };
    const cover = weekCover(period.fromDay, period.toDay);
    if (cover.weeks) {
      const weekly = await db
        .selectFrom("analytics_breakdown_weekly")
        .select(["key", "conversions", "revenue", "visitors_sketch"])
        .where("project_id", "=", project.id)
        .where("dimension", "=", by)
        .where("week", ">=", cover.weeks.from)
        .where("week", "<=", cover.weeks.to)
        .execute();
      for (const r of weekly) add(r);
    }
    for (const range of cover.days) {
      const daily = await db
        .selectFrom("analytics_breakdown_daily")
        .select(["key", "conversions", "revenue", "visitors_sketch"])
        .where("project_id", "=", project.id)
        .where("dimension", "=", by)
        .where("day", ">=", range.from)
        .where("day", "<=", range.to)
        .execute();
      for (const r of daily) add(r);
    }
  }
  if (goal) {
    // One goal's conversions: from the conversions' own table, under the person's first touch.
    for (const a of keys.values()) {
      a.conversions = 0;
      a.revenue = 0;
    }
    const counted =
      by === "event_type"
        ? await goalConversionsByType(db, project, range, goal)
        : await goalConversionsByFirstTouch(db, project, range, goal, by);
    for (const [key, c] of counted) {
      const a = at(key);
      a.conversions += c.conversions;
      a.revenue += c.revenue;
    }
  }
  const basis = await rateBasis(db, project, range, goal, by, keys);
  for (const key of basis.keys()) at(key);
  const rows = [...keys]
    .map(([key, a]) => {
      const visitors = a.sketch.count();
      const b = basis.get(key) ?? { visitors: 0, converted: 0 };
      return {
        key,
        visitors,
        ...visitorsEstimate(a.sketch),
        conversions: a.conversions,
        firstTouchVisitors: b.visitors,
        convertedVisitors: b.converted,
        conversionRate: rateOf(b.converted, b.visitors),
        revenue: Math.round(a.revenue * 1e6) / 1e6,
      };
    })
    .filter((r) => r.visitors > 0 || r.conversions > 0 || r.revenue !== 0 || r.firstTouchVisitors > 0)
    .sort((a, b) => b.visitors - a.visitors || b.conversions - a.conversions || compare(a.key, b.key))
    .slice(0, limit);
  return { goal, by, rows, period: { from: period.from, to: period.to } };
}

/**
 * Each row's rate basis: for a session's value, the period's visitors whose person's first touch
 * had it and those of them who converted; for an event type, the visitors who sent one in the
 * period (analytics_activity) and those of them who converted.
 */
async function rateBasis(
  db: DbOrTrx,
  project: ProjectRef,
  range: { from: number; to: number },
  goal: GoalRef | null,
  by: BreakdownDimension,
  keys: Map<string, Accumulator>,
): Promise<Map<string, BasisRow>> {
  const converters = await convertersIn(db, project, range, goal);
  if (by !== "event_type") {
    const population = await periodVisitorIds(db, project, range);
    return (await populationRates(db, project, population, converters, [by])).by.get(by)!;
  }
  const out = new Map<string, BasisRow>();
  for (const type of keys.keys()) {
    const population = await visitorsWhoSent(db, project, range, type);
    const r = await populationRates(db, project, population, converters);
    out.set(type, { visitors: population.length, converted: r.converted });
  }
  return out;
}

function addCounters(
  counters: { key: string; conversions: number | string | null; revenue: number | string | null }[],
  at: (key: string) => Accumulator,
): void {
  for (const c of counters) {
    const a = at(c.key);
    a.conversions += Number(c.conversions ?? 0);
    a.revenue += Number(c.revenue ?? 0);
  }
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
