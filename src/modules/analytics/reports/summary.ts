import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { DbOrTrx } from "../../../platform/db/index.js";
import {
  type GoalRef,
  convertersIn,
  goalConversions,
  periodVisitorIds,
  populationRates,
  rateOf,
} from "./conversion-model.js";
import { type RevenueCurrency, convertedPeople, periodVisitors, rates } from "./converted.js";
import { VisitorSketch, type VisitorsEstimate, visitorsEstimate } from "../ingest/hll.js";
import type { Period } from "./period.js";
import { ALL_CHANNELS, DAY_MS } from "../ingest/rollup-store.js";
import { sketchesFor } from "../ingest/sketches.js";
import "../tables.js";

export interface TopChannel {
  channel: string;
  /** the traffic the channel brought: visitors with a session on it */
  visitors: number;
  /** present when `visitors` is an estimate */
  visitorsEstimate?: VisitorsEstimate;
  conversions: number;
  /** revenue of those conversions (net of refunds): the same first-touch basis */
  revenue: number;
  /** the period's visitors whose person's first touch was the channel */
  firstTouchVisitors: number;
  /** those of them who converted */
  convertedVisitors: number;
  /** convertedVisitors ÷ firstTouchVisitors */
  conversionRate: number;
}

export interface AnalyticsSummary extends RevenueCurrency {
  /** the goal counted (null: any conversion goal) */
  goal: GoalRef | null;
  visitors: number;
  /** present when `visitors` is an estimate */
  visitorsEstimate?: VisitorsEstimate;
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
    .filter((c) => c.visitors > 0 || c.conversions > 0 || c.firstTouchVisitors > 0)
    .sort(
      (a, b) =>
        b.visitors - a.visitors || b.conversions - a.conversions || a.channel.localeCompare(b.channel),
    )
    .slice(0, TOP_CHANNELS);
}

/**
 * Reads the rollups: counters summed per channel in SQL, and visitor sketches — one per
 * channel and full week plus one per channel and edge day (sketches.ts): cost grows with
 * weeks × channels, not with events. Distinct visitors over the period are the union of the days'
 * sketches (see hll.ts), so a visitor seen on many days counts once; per channel, a visitor counts
 * in every channel it had a session from (the traffic it brought). With one goal, its conversions
 * come from the conversions' own table. Rates follow the conversion model (conversion-model.ts):
 * the period's visitors whose person converted, and per channel on the first-touch basis.
 */
export async function analyticsSummary(
  db: DbOrTrx,
  project: ProjectRef,
  period: Period,
  /** a filter on channels alone (rollup path): only these channels, visitors their union */
  only?: Set<string>,
  goal: GoalRef | null = null,
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
  const channels = new Map<string, { sketch: VisitorSketch; conversions: number; revenue: number }>();
  const channel = (name: string) => {
    let c = channels.get(name);
    if (!c) {
      c = { sketch: VisitorSketch.union(), conversions: 0, revenue: 0 };
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
    if (goal) continue;
    conversions += Number(r.conversions);
    revenue += Number(r.revenue);
    channel(r.channel).conversions += Number(r.conversions);
    channel(r.channel).revenue += Number(r.revenue);
  }
  if (goal) {
    const counted = await goalConversions(db, project, range, goal);
    for (const [name, c] of counted.byChannel) {
      if (only && !only.has(name)) continue;
      conversions += c.conversions;
      revenue += c.revenue;
      channel(name).conversions += c.conversions;
      channel(name).revenue += c.revenue;
    }
  }
  const sketches = await sketchesFor(db, project.id, period.fromDay, period.toDay);
  for (const r of sketches)
    if (r.channel !== ALL_CHANNELS && (!only || only.has(r.channel)))
      channel(r.channel).sketch.mergeText(r.visitors_sketch);
  const all = periodVisitors(sketches, only);
  const visitors = all.count();
  const currency = await convertedPeople(db, project.id, range, only);
  const population = await periodVisitorIds(db, project, range, only);
  const converters = await convertersIn(db, project, range, goal);
  const people = await populationRates(db, project, population, converters, ["channel"]);
  const basis = people.by.get("channel")!;
  for (const name of basis.keys()) if (!only || only.has(name)) channel(name);
  const topChannels = topChannelsOf(
    [...channels].map(([name, c]) => {
      const b = basis.get(name) ?? { visitors: 0, converted: 0 };
      return {
        channel: name,
        visitors: c.sketch.count(),
        ...visitorsEstimate(c.sketch),
        conversions: c.conversions,
        revenue: round6(c.revenue),
        firstTouchVisitors: b.visitors,
        convertedVisitors: b.converted,
        conversionRate: rateOf(b.converted, b.visitors),
      };
    }),
  );
  return {
    goal,
    visitors,
    ...visitorsEstimate(all),
    leads,
    conversions,
    convertedVisitors: people.converted,
    ...rates(visitors, people.converted, conversions),
    revenue: round6(revenue),
    revenueCurrency: currency.revenueCurrency,
    revenueCurrencies: currency.revenueCurrencies,
    topChannels,
    period: { from: period.from, to: period.to },
  };
}
