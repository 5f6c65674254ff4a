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
import {
  type BasisRow,
  type GoalRef,
  type TouchKey,
  goalEventIds,
  populationRates,
  rateOf,
} from "./conversion-model.js";
import { currencyOf, rates } from "./converted.js";
import { hasLevel } from "./filter.js";
import { type AnalyticsSummary, topChannelsOf } from "./summary.js";
import { type Interval, type Timeseries, totalsOf } from "./timeseries.js";
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
  opts: { dims?: boolean; byType?: boolean; goal?: GoalRef | null; serverToo?: boolean } = {},
): Promise<{ conversions: ConversionFact[]; visitors: Set<string> }> {
  const candidates = await ofGoal(
    db,
    project,
    range,
    opts.goal ?? null,
    await conversionsIn(db, project, range),
  );
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

/** The conversions of one goal among `list` (any goal: all of them). */
async function ofGoal(
  db: DbOrTrx,
  project: ProjectRef,
  range: Range,
  goal: GoalRef | null,
  list: ConversionFact[],
): Promise<ConversionFact[]> {
  if (!goal) return list;
  const hits = await goalEventIds(db, project, range, goal);
  return list.filter((c) => hits.has(c.eventId));
}

/** People (person keys) among conversions who converted: counted ones, not anonymous. */
const convertersOf = (list: ConversionFact[]) =>
  new Set(list.filter((c) => c.counted > 0 && c.personKey !== "v:").map((c) => c.personKey));

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

/**
 * The summary over what the filter selects. Its people are the visitors of the selected visits —
 * with event conditions, everyone who sent a matching event, servers' events included, so
 * "event is purchase" counts the buyers. Rates as everywhere (conversion-model.ts).
 */
export async function filteredSummary(
  db: DbOrTrx,
  project: ProjectRef,
  period: Period,
  f: ResolvedFilter,
  goal: GoalRef | null = null,
): Promise<AnalyticsSummary> {
  const range = rangeOf(period);
  const channels = new Groups();
  const { conversions, visitors } = await gather(
    db,
    project,
    f,
    range,
    (v) => {
      if (!v.server) channels.at(v.channel).visitors.add(v.visitorId);
    },
    { goal, serverToo: hasLevel(f.conds, "event") },
  );
  let counted = 0;
  let revenue = 0;
  for (const c of conversions) {
    counted += c.counted;
    revenue += c.revenue;
    channels.at(c.channel).conversions += c.counted;
  }
  const leads = (await leadsCreated(db, project, f, visitors, conversions, range)).length;
  const people = await populationRates(db, project, visitors, convertersOf(conversions), ["channel"]);
  const basis = people.by.get("channel")!;
  for (const channel of basis.keys()) channels.at(channel);
  const topChannels = topChannelsOf(
    [...channels.map].map(([channel, g]) => {
      const b = basis.get(channel) ?? { visitors: 0, converted: 0 };
      return {
        channel,
        visitors: g.visitors.size,
        conversions: g.conversions,
        firstTouchVisitors: b.visitors,
        convertedVisitors: b.converted,
        conversionRate: rateOf(b.converted, b.visitors),
      };
    }),
  );
  return {
    goal,
    visitors: visitors.size,
    leads,
    conversions: counted,
    convertedVisitors: people.converted,
    ...rates(visitors.size, people.converted, counted),
    revenue: round6(revenue),
    ...currencyOf(conversions.map((c) => c.currency)),
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
  goal: GoalRef | null = null,
): Promise<Timeseries> {
  const range = rangeOf(period);
  // Buckets by their first day inside the period (weeks cut at the period's edges).
  const bucketOf = (ts: number) => {
    const day = Math.floor(ts / DAY_MS);
    return interval === "day" ? day : Math.max(weekStart(weekOf(day)), period.fromDay);
  };
  const groups = new Groups();
  const { conversions, visitors } = await gather(
    db,
    project,
    f,
    range,
    (v) => {
      groups.at(String(bucketOf(v.ts))).visitors.add(v.visitorId);
    },
    { goal, serverToo: hasLevel(f.conds, "event") },
  );
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
  // The period's visitors are the distinct ones of all buckets (gather's), as in the summary.
  const people = await populationRates(db, project, visitors, convertersOf(conversions));
  return {
    goal,
    interval,
    period: { from: period.from, to: period.to },
    points,
    totals: totalsOf(points, visitors.size, people.converted),
  };
}

export async function filteredBreakdown(
  db: DbOrTrx,
  project: ProjectRef,
  by: BreakdownDimension,
  period: Period,
  limit: number,
  f: ResolvedFilter,
  goal: GoalRef | null = null,
): Promise<Breakdown> {
  const range = rangeOf(period);
  const groups = new Groups();
  const byType = by === "event_type";
  const dims = by !== "channel" && !byType;
  const keyOfVisit = (v: Visit) =>
    byType ? v.type! : by === "channel" ? v.channel : (v.dims?.[by] ?? NONE_KEY);
  const { conversions, visitors } = await gather(
    db,
    project,
    f,
    range,
    (v) => {
      groups.at(keyOfVisit(v)).visitors.add(v.visitorId);
    },
    { dims, byType, goal },
  );
  for (const c of conversions) {
    const key = byType ? c.type : by === "channel" ? c.channel : (c.dims?.[by] ?? NONE_KEY);
    const g = groups.at(key);
    g.conversions += c.counted;
    g.revenue += c.revenue;
  }
  const converters = convertersOf(conversions);
  // The rate's basis: the person's first touch for a session's value; the row's own visitors for a type.
  const basis = byType
    ? new Map<string, BasisRow>()
    : (await populationRates(db, project, visitors, converters, [by as TouchKey])).by.get(by as TouchKey)!;
  if (byType)
    for (const [key, g] of groups.map) {
      const r = await populationRates(db, project, g.visitors, converters);
      basis.set(key, { visitors: g.visitors.size, converted: r.converted });
    }
  for (const key of basis.keys()) groups.at(key);
  const rows: BreakdownRow[] = [...groups.map]
    .map(([key, g]) => {
      const b = basis.get(key) ?? { visitors: 0, converted: 0 };
      return {
        key,
        visitors: g.visitors.size,
        conversions: g.conversions,
        firstTouchVisitors: b.visitors,
        convertedVisitors: b.converted,
        conversionRate: rateOf(b.converted, b.visitors),
        revenue: round6(g.revenue),
      };
    })
    .filter((r) => r.visitors > 0 || r.conversions > 0 || r.revenue !== 0 || r.firstTouchVisitors > 0)
    .sort(
      (a, b) =>
        b.visitors - a.visitors ||
        b.conversions - a.conversions ||
        (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
    )
    .slice(0, limit);
  return { goal, by, rows, period: { from: period.from, to: period.to } };
}

/** Attribution over the conversions the filter selects: their stored credits for the model. */
export async function filteredAttribution(
  db: DbOrTrx,
  project: ProjectRef,
  model: AttributionModel,
  period: Period,
  f: ResolvedFilter,
  goal: GoalRef | null = null,
): Promise<AttributionSummary> {
  const range = rangeOf(period);
  const candidates = await ofGoal(db, project, range, goal, await conversionsIn(db, project, range));
  const list = await matchingConversions(db, project, f, range, candidates);
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
    goal,
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
