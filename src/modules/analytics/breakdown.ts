import type { ProjectRef } from "../../platform/auth/principal.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import type { BreakdownDimension } from "./dimensions.js";
import { VisitorSketch } from "./hll.js";
import type { Period } from "./period.js";
import { ALL_CHANNELS } from "./rollup-store.js";
import { sketchesFor, weekCover } from "./sketches.js";
import "./tables.js";

export interface BreakdownRow {
  key: string;
  visitors: number;
  conversions: number;
  conversionRate: number;
  revenue: number;
}

export interface Breakdown {
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
): Promise<Breakdown> {
  const keys = new Map<string, Accumulator>();
  const at = (key: string): Accumulator => {
    let a = keys.get(key);
    if (!a) {
      a = { sketch: new VisitorSketch(), conversions: 0, revenue: 0 };
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
  const rows = [...keys]
    .map(([key, a]) => {
      const visitors = a.sketch.count();
      return {
        key,
        visitors,
        conversions: a.conversions,
        conversionRate: visitors > 0 ? a.conversions / visitors : 0,
        revenue: Math.round(a.revenue * 1e6) / 1e6,
      };
    })
    .filter((r) => r.visitors > 0 || r.conversions > 0 || r.revenue !== 0)
    .sort((a, b) => b.visitors - a.visitors || b.conversions - a.conversions || compare(a.key, b.key))
    .slice(0, limit);
  return { by, rows, period: { from: period.from, to: period.to } };
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
