import type { ProjectRef } from "../../platform/auth/principal.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import { VisitorSketch } from "./hll.js";
import type { Period } from "./period.js";
import { ALL_CHANNELS } from "./rollup-store.js";
import { sketchesFor } from "./sketches.js";
import "./tables.js";

export interface AnalyticsSummary {
  visitors: number;
  leads: number;
  conversions: number;
  conversionRate: number;
  topChannels: { channel: string; visitors: number; conversions: number }[];
  period: { from: string; to: string };
}

const TOP_CHANNELS = 10;

/**
 * Reads only the rollups: counters summed per channel in SQL, and visitor sketches — one per
 * channel and full week plus one per channel and edge day (sketches.ts): cost grows with
 * weeks × channels, not with events. Distinct
 * visitors over the period are the union of the days' sketches (see hll.ts), so a visitor seen on
 * many days counts once; per channel, a visitor counts in every channel it had a session from.
 */
export async function analyticsSummary(
  db: DbOrTrx,
  project: ProjectRef,
  period: Period,
  /** a filter on channels alone (rollup path): only these channels, visitors their union */
  only?: Set<string>,
): Promise<AnalyticsSummary> {
  const counters = await db
    .selectFrom("analytics_daily")
    .select((eb) => [
      "channel",
      eb.fn.sum<number>("conversions").as("conversions"),
      eb.fn.sum<number>("leads").as("leads"),
    ])
    .where("project_id", "=", project.id)
    .where("day", ">=", period.fromDay)
    .where("day", "<=", period.toDay)
    .groupBy("channel")
    .execute();
  const all = new VisitorSketch();
  const channels = new Map<string, { sketch: VisitorSketch; conversions: number }>();
  const channel = (name: string) => {
    let c = channels.get(name);
    if (!c) {
      c = { sketch: new VisitorSketch(), conversions: 0 };
      channels.set(name, c);
    }
    return c;
  };
  let leads = 0;
  let conversions = 0;
  for (const r of counters) {
    if (r.channel === ALL_CHANNELS || (only && !only.has(r.channel))) continue;
    leads += Number(r.leads);
    conversions += Number(r.conversions);
    channel(r.channel).conversions += Number(r.conversions);
  }
  for (const r of await sketchesFor(db, project.id, period.fromDay, period.toDay)) {
    if (r.channel === ALL_CHANNELS) {
      if (!only) all.mergeText(r.visitors_sketch);
    } else if (!only || only.has(r.channel)) {
      channel(r.channel).sketch.mergeText(r.visitors_sketch);
      if (only) all.mergeText(r.visitors_sketch);
    }
  }
  const visitors = all.count();
  const topChannels = [...channels]
    .map(([channel, c]) => ({ channel, visitors: c.sketch.count(), conversions: c.conversions }))
    .filter((c) => c.visitors > 0 || c.conversions > 0)
    .sort(
      (a, b) =>
        b.visitors - a.visitors || b.conversions - a.conversions || a.channel.localeCompare(b.channel),
    )
    .slice(0, TOP_CHANNELS);
  return {
    visitors,
    leads,
    conversions,
    conversionRate: visitors > 0 ? conversions / visitors : 0,
    topChannels,
    period: { from: period.from, to: period.to },
  };
}
