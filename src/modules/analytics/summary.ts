import type { ProjectRef } from "../../platform/auth/principal.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import { type RevenueCurrency, convertedPeople, periodVisitors, rates } from "./converted.js";
import { VisitorSketch } from "./hll.js";
import type { Period } from "./period.js";
import { ALL_CHANNELS, DAY_MS } from "./rollup-store.js";
import { sketchesFor } from "./sketches.js";
import "./tables.js";

export interface TopChannel {
  channel: string;
  visitors: number;
  conversions: number;
  convertedVisitors: number;
  conversionRate: number;
}

export interface AnalyticsSummary extends RevenueCurrency {
  visitors: number;
  leads: number;
  conversions: number;
  convertedVisitors: number;
  /** per person: convertedVisitors ÷ visitors */
  conversionRate: number;
  /** per event: conversions ÷ visitors */
  conversionsPerVisitor: number;
  revenue: number;
  topChannels: TopChannel[];
  period: { from: string; to: string };
}

const TOP_CHANNELS = 10;
const round6 = (x: number) => Math.round(x * 1e6) / 1e6 + 0;

/** Top channels by visitors, then conversions; at most ten, none without either. */
export function topChannelsOf(list: TopChannel[]): TopChannel[] {
  return list
    .filter((c) => c.visitors > 0 || c.conversions > 0)
    .sort(
      (a, b) =>
        b.visitors - a.visitors || b.conversions - a.conversions || a.channel.localeCompare(b.channel),
    )
    .slice(0, TOP_CHANNELS);
}

/**
 * Reads the rollups: counters summed per channel in SQL, and visitor sketches — one per
 * channel and full week plus one per channel and edge day (sketches.ts): cost grows with
 * weeks × channels, not with events. Distinct
 * visitors over the period are the union of the days' sketches (see hll.ts), so a visitor seen on
 * many days counts once; per channel, a visitor counts in every channel it had a session from.
 * People who converted come from the conversions' own table (converted.ts), which is indexed by
 * time and holds one row per conversion, not per event.
 */
export async function analyticsSummary(
  db: DbOrTrx,
  project: ProjectRef,
  period: Period,
  /** a filter on channels alone (rollup path): only these channels, visitors their union */
  only?: Set<string>,
): Promise<AnalyticsSummary> {
  const range = { from: period.fromDay * DAY_MS, to: (period.toDay + 1) * DAY_MS };
  const counters = await db
    .selectFrom("analytics_daily")
    .select((eb) => [
      "channel",
      eb.fn.sum<number>("conversions").as("conversions"),
      eb.fn.sum<number>("leads").as("leads"),
      eb.fn.sum<number>("revenue").as("revenue"),
    ])
    .where("project_id", "=", project.id)
    .where("day", ">=", period.fromDay)
    .where("day", "<=", period.toDay)
    .groupBy("channel")
    .execute();
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
  let revenue = 0;
  for (const r of counters) {
    if (r.channel === ALL_CHANNELS || (only && !only.has(r.channel))) continue;
    leads += Number(r.leads);
    conversions += Number(r.conversions);
    revenue += Number(r.revenue);
    channel(r.channel).conversions += Number(r.conversions);
  }
  const sketches = await sketchesFor(db, project.id, period.fromDay, period.toDay);
  for (const r of sketches)
    if (r.channel !== ALL_CHANNELS && (!only || only.has(r.channel)))
      channel(r.channel).sketch.mergeText(r.visitors_sketch);
  const visitors = periodVisitors(sketches, only).count();
  const converted = await convertedPeople(db, project.id, range, only);
  const topChannels = topChannelsOf(
    [...channels].map(([name, c]) => {
      const v = c.sketch.count();
      const people = converted.byChannel.get(name) ?? 0;
      return {
        channel: name,
        visitors: v,
        conversions: c.conversions,
        convertedVisitors: people,
        conversionRate: rates(v, people, c.conversions).conversionRate,
      };
    }),
  );
  return {
    visitors,
    leads,
    conversions,
    convertedVisitors: converted.total,
    ...rates(visitors, converted.total, conversions),
    revenue: round6(revenue),
    revenueCurrency: converted.revenueCurrency,
    revenueCurrencies: converted.revenueCurrencies,
    topChannels,
    period: { from: period.from, to: period.to },
  };
}
