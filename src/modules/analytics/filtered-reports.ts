import type { ProjectRef } from "../../platform/auth/principal.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import { leadReader } from "./lead-reader.js";
import type { AttributionSummary } from "./attribution.js";
import type { Breakdown, BreakdownRow } from "./breakdown.js";
import { type BreakdownDimension, NONE_KEY } from "./dimensions.js";
import {
  type ConversionFact,
  type Range,
  type Visit,
  type ResolvedFilter,
  conversionsIn,
  matchingConversions,
  matchingVisits,
  visitsFromEvents,
} from "./filtered.js";
import type { AttributionModel } from "./models.js";
import { leadsOfVisitors, personKey } from "./people.js";
import type { Period } from "./period.js";
import { DAY_MS } from "./rollup-store.js";
import type { AnalyticsSummary } from "./summary.js";
import type { Interval, Timeseries } from "./timeseries.js";
import { weekOf, weekStart } from "./sketches.js";

/** Filtered reports over raw data (filtered.ts): exact distinct counts, per request. */

const rangeOf = (p: Period): Range => ({ from: p.fromDay * DAY_MS, to: (p.toDay + 1) * DAY_MS });
const round6 = (x: number) => Math.round(x * 1e6) / 1e6 + 0;
const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** What a report keeps per group: its visitors, conversions and revenue. */
class Groups {
  readonly map = new Map<string, { visitors: Set<string>; conversions: number; revenue: number }>();
  at(key: string) {
    let g = this.map.get(key);
    if (!g) {
      g = { visitors: new Set(), conversions: 0, revenue: 0 };
      this.map.set(key, g);
    }
    return g;
  }
}

/**
 * Visits and conversions of the period the filter selects, handed to the report; also the people
 * seen (for leads). One pass over the visits' source, conversions from their own table.
 */
async function gather(
  db: DbOrTrx,
  project: ProjectRef,
  f: ResolvedFilter,
  range: Range,
  onVisit: (v: Visit) => void,
  opts: { dims?: boolean; byType?: boolean } = {},
): Promise<{ conversions: ConversionFact[]; visitors: Set<string> }> {
  const candidates = await conversionsIn(db, project, range);
  const fromEvents = visitsFromEvents(f, opts.byType);
  const matched = new Set<string>();
  const conversionIds = fromEvents ? new Set(candidates.map((c) => c.eventId)) : undefined;
  const visitors = new Set<string>();
  for await (const page of matchingVisits(db, project, f, range, { ...opts, conversionIds, matched }))
    for (const v of page) {
      visitors.add(v.visitorId);
      onVisit(v);
    }
  const conversions = await matchingConversions(db, project, f, range, candidates, {
    matchedEvents: fromEvents ? matched : undefined,
    dims: opts.dims,
  });
  return { conversions, visitors };
}

/** Creation times (epoch ms) of the leads among the people seen, those created in the range. */
async function leadsCreated(
  db: DbOrTrx,
  project: ProjectRef,
  f: ResolvedFilter,
  visitors: Set<string>,
  conversions: ConversionFact[],
  range: Range,
): Promise<number[]> {
  const leads = new Set<string>();
  if (f.people) {
    // The person test holds the project's links already.
    for (const v of visitors) {
      const lead = f.people.leadOf(v);
      if (lead) leads.add(lead);
    }
  } else if (visitors.size > 0) {
    for (const lead of (await leadsOfVisitors(db, project.id, [...visitors])).values()) leads.add(lead);
  }
  for (const c of conversions) if (c.leadId) leads.add(c.leadId);
  const times = await leadReader().createdTimes(db, project, [...leads]);
  return [...times.values()].filter((t) => t >= range.from && t < range.to);
}

export async function filteredSummary(
  db: DbOrTrx,
  project: ProjectRef,
  period: Period,
  f: ResolvedFilter,
): Promise<AnalyticsSummary> {
  const range = rangeOf(period);
  const channels = new Groups();
  const all = new Set<string>();
  const { conversions, visitors } = await gather(db, project, f, range, (v) => {
    all.add(v.visitorId);
    channels.at(v.channel).visitors.add(v.visitorId);
  });
  let counted = 0;
  for (const c of conversions) {
    counted += c.counted;
    channels.at(c.channel).conversions += c.counted;
  }
  const leads = (await leadsCreated(db, project, f, visitors, conversions, range)).length;
  const topChannels = [...channels.map]
    .map(([channel, g]) => ({ channel, visitors: g.visitors.size, conversions: g.conversions }))
    .filter((c) => c.visitors > 0 || c.conversions > 0)
    .sort(
      (a, b) =>
        b.visitors - a.visitors || b.conversions - a.conversions || a.channel.localeCompare(b.channel),
    )
    .slice(0, 10);
  return {
    visitors: all.size,
    leads,
    conversions: counted,
    conversionRate: all.size > 0 ? counted / all.size : 0,
    topChannels,
    period: { from: period.from, to: period.to },
  };
}

export async function filteredTimeseries(
  db: DbOrTrx,
  project: ProjectRef,
  period: Period,
  interval: Interval,
  f: ResolvedFilter,
): Promise<Timeseries> {
  const range = rangeOf(period);
  // Buckets by their first day inside the period (weeks cut at the period's edges).
  const bucketOf = (ts: number) => {
    const day = Math.floor(ts / DAY_MS);
    return interval === "day" ? day : Math.max(weekStart(weekOf(day)), period.fromDay);
  };
  const groups = new Groups();
  const { conversions, visitors } = await gather(db, project, f, range, (v) => {
    groups.at(String(bucketOf(v.ts))).visitors.add(v.visitorId);
  });
  for (const c of conversions) {
    const g = groups.at(String(bucketOf(c.ts)));
    g.conversions += c.counted;
    g.revenue += c.revenue;
  }
  const leadsAt = new Map<number, number>();
  for (const t of await leadsCreated(db, project, f, visitors, conversions, range))
    leadsAt.set(bucketOf(t), (leadsAt.get(bucketOf(t)) ?? 0) + 1);
  const points = [];
  for (let day = period.fromDay; day <= period.toDay; ) {
    const g = groups.map.get(String(day));
    points.push({
      date: isoDay(day),
      visitors: g?.visitors.size ?? 0,
      leads: leadsAt.get(day) ?? 0,
      conversions: g?.conversions ?? 0,
      revenue: round6(g?.revenue ?? 0),
    });
    day = interval === "day" ? day + 1 : Math.min(weekStart(weekOf(day)) + 7, period.toDay + 1);
  }
  return { interval, period: { from: period.from, to: period.to }, points };
}

export async function filteredBreakdown(
  db: DbOrTrx,
  project: ProjectRef,
  by: BreakdownDimension,
  period: Period,
  limit: number,
  f: ResolvedFilter,
): Promise<Breakdown> {
  const range = rangeOf(period);
  const groups = new Groups();
  const byType = by === "event_type";
  const dims = by !== "channel" && !byType;
  const keyOfVisit = (v: Visit) =>
    byType ? v.type! : by === "channel" ? v.channel : (v.dims?.[by] ?? NONE_KEY);
  const { conversions } = await gather(
    db,
    project,
    f,
    range,
    (v) => {
      groups.at(keyOfVisit(v)).visitors.add(v.visitorId);
    },
    { dims, byType },
  );
  for (const c of conversions) {
    const key = byType ? c.type : by === "channel" ? c.channel : (c.dims?.[by] ?? NONE_KEY);
    const g = groups.at(key);
    g.conversions += c.counted;
    g.revenue += c.revenue;
  }
  const rows: BreakdownRow[] = [...groups.map]
    .map(([key, g]) => ({
      key,
      visitors: g.visitors.size,
      conversions: g.conversions,
      conversionRate: g.visitors.size > 0 ? g.conversions / g.visitors.size : 0,
      revenue: round6(g.revenue),
    }))
    .filter((r) => r.visitors > 0 || r.conversions > 0 || r.revenue !== 0)
    .sort(
      (a, b) =>
        b.visitors - a.visitors ||
        b.conversions - a.conversions ||
        (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
    )
    .slice(0, limit);
  return { by, rows, period: { from: period.from, to: period.to } };
}

/** Attribution over the conversions the filter selects: their stored credits for the model. */
export async function filteredAttribution(
  db: DbOrTrx,
  project: ProjectRef,
  model: AttributionModel,
  period: Period,
  f: ResolvedFilter,
): Promise<AttributionSummary> {
  const range = rangeOf(period);
  const list = await matchingConversions(db, project, f, range, await conversionsIn(db, project, range));
  const channels = new Map<string, { credited: number; revenue: number }>();
  for (const c of list) {
    const credits = c.credits
      ? (JSON.parse(c.credits) as Record<string, Record<string, number>>)[model]
      : undefined;
    for (const [channel, credit] of Object.entries(credits ?? { [c.channel]: 1 })) {
      const a = channels.get(channel) ?? { credited: 0, revenue: 0 };
      a.credited += c.counted * credit;
      a.revenue += credit * c.revenue;
      channels.set(channel, a);
    }
  }
  return {
    model,
    channels: [...channels]
      .map(([channel, a]) => ({
        channel,
        creditedConversions: round6(a.credited),
        revenue: round6(a.revenue),
      }))
      .filter((c) => c.creditedConversions !== 0 || c.revenue !== 0)
      .sort(
        (a, b) =>
          b.creditedConversions - a.creditedConversions ||
          b.revenue - a.revenue ||
          a.channel.localeCompare(b.channel),
      ),
  };
}

/**
 * The people (person keys) the filter selects in the range: those with a selected visit or a
 * selected conversion — what a report over people (retention, the lead list) keeps.
 */
export async function matchingPeople(
  db: DbOrTrx,
  project: ProjectRef,
  f: ResolvedFilter,
  range: Range,
): Promise<Set<string>> {
  const visitors = new Set<string>();
  for await (const page of matchingVisits(db, project, f, range))
    for (const v of page) visitors.add(v.visitorId);
  const out = new Set<string>();
  const leads = await leadsOfVisitors(db, project.id, [...visitors]);
  for (const v of visitors) out.add(personKey(v, leads.get(v)));
  for (const c of await matchingConversions(db, project, f, range, await conversionsIn(db, project, range)))
    out.add(c.personKey);
  return out;
}
