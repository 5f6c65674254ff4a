import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { ReadDeps } from "../../../platform/deps.js";
import type { ChannelAttribution } from "./attribution.js";
import type { Breakdown, BreakdownRow } from "./breakdown.js";
import { type GoalRef, rateOf } from "./conversion-model.js";
import { currencyOf, rates } from "./converted.js";
import { type BreakdownDimension, NONE_KEY } from "../ingest/dimensions.js";
import { convertersCte, populationCte, selection } from "../engine/selection.js";
import { EngineQuery } from "../engine/sql.js";
import { type Condition, hasLevel } from "../filters/filter.js";
import { leadCreatedTimes } from "../../identity/service.js";
import type { AttributionModel } from "../ingest/models.js";
import type { Period } from "./period.js";
import { DAY_MS } from "../ingest/rollup-store.js";
import { type AnalyticsSummary, topChannelsOf } from "./summary.js";
import { type Interval, type Timeseries, totalsOf } from "./timeseries.js";

/**
 * Filtered reports, each one query on the analytics engine over what the filter selects
 * (engine/selection.ts): exact distinct counts. Rates as everywhere (conversion-model.ts).
 */

const rangeOf = (p: Period) => ({ from: p.fromDay * DAY_MS, to: (p.toDay + 1) * DAY_MS });
const round6 = (x: number) => Math.round(x * 1e6) / 1e6 + 0;
const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

interface Keyed {
  key: string | number;
  visitors?: number;
  conversions?: number;
  revenue?: number;
  converted?: number;
}
const byKey = (rows: Keyed[] | null) => new Map((rows ?? []).map((r) => [String(r.key), r]));

/** The leads among the people selected that were created in the range (identity's store says when). */
async function leadsCreatedIn(
  deps: ReadDeps,
  project: ProjectRef,
  leads: string[] | null,
  range: { from: number; to: number },
) {
  const times = await leadCreatedTimes(deps.db, project, leads ?? []);
  return [...times.values()].filter((t) => t >= range.from && t < range.to);
}

/** The selected people's lead ids (their visits' and conversions'), a column of the answer. */
const LEADS = `(select list(distinct lead_id) from (select lead_id from visits union all select lead_id from conv) where lead_id is not null)`;

/**
 * The summary over what the filter selects. Its people are the visitors of the selected visits —
 * with event conditions, everyone who sent a matching event, servers' events included, so "event
 * is purchase" counts the buyers.
 */
export async function filteredSummary(
  deps: ReadDeps,
  project: ProjectRef,
  period: Period,
  conds: Condition[],
  goal: GoalRef | null = null,
): Promise<AnalyticsSummary> {
  const range = rangeOf(period);
  const q = new EngineQuery();
  const withs = await selection(q, deps, project, conds, range, {
    goal,
    serverToo: hasLevel(conds, "event"),
  });
  const none = q.v(NONE_KEY);
  const [row] = await deps.engine.query<{
    visitors: number;
    converted: number;
    conversions: number;
    revenue: number;
    currencies: string[] | null;
    leads: string[] | null;
    traffic: Keyed[] | null;
    counted: Keyed[] | null;
    basis: Keyed[] | null;
  }>(
    ...q.bound(`${withs}, ${convertersCte()}, ${populationCte()}
    select
      (select count(*) from pop_people) as visitors,
      (select count(*) from pop_people where converted) as converted,
      (select coalesce(sum(counted), 0) from conv) as conversions,
      (select coalesce(sum(revenue), 0) from conv) as revenue,
      (select list(distinct currency) from conv where currency is not null) as currencies,
      ${LEADS} as leads,
      (select list({key: channel, visitors: n}) from (select channel, count(distinct visitor_id) as n from visits where not server group by channel)) as traffic,
      (select list({key: channel, conversions: n, revenue: m}) from (select channel, sum(counted) as n, sum(revenue) as m from conv group by channel)) as counted,
      (select list({key: k, visitors: n, converted: m}) from (select coalesce(ft_channel, ${none}) as k, count(*) as n, count(*) filter (where converted) as m from pop_people group by 1)) as basis`),
  );
  const r = row!;
  const traffic = byKey(r.traffic);
  const counted = byKey(r.counted);
  const basis = byKey(r.basis);
  const channels = new Set([...traffic.keys(), ...counted.keys(), ...basis.keys()]);
  const topChannels = topChannelsOf(
    [...channels].map((channel) => {
      const b = basis.get(channel);
      return {
        channel,
        visitors: Number(traffic.get(channel)?.visitors ?? 0),
        conversions: Number(counted.get(channel)?.conversions ?? 0),
        revenue: round6(Number(counted.get(channel)?.revenue ?? 0)),
        firstTouchVisitors: Number(b?.visitors ?? 0),
        convertedVisitors: Number(b?.converted ?? 0),
        conversionRate: rateOf(Number(b?.converted ?? 0), Number(b?.visitors ?? 0)),
      };
    }),
  );
  const visitors = Number(r.visitors);
  const converted = Number(r.converted);
  const conversions = Number(r.conversions);
  return {
    goal,
    visitors,
    leads: (await leadsCreatedIn(deps, project, r.leads, range)).length,
    conversions,
    convertedVisitors: converted,
    ...rates(visitors, converted, conversions),
    revenue: round6(Number(r.revenue)),
    ...currencyOf(r.currencies ?? []),
    topChannels,
    period: { from: period.from, to: period.to },
  };
}

export async function filteredTimeseries(
  deps: ReadDeps,
  project: ProjectRef,
  period: Period,
  interval: Interval,
  conds: Condition[],
  goal: GoalRef | null = null,
): Promise<Timeseries> {
  const range = rangeOf(period);
  const q = new EngineQuery();
  const withs = await selection(q, deps, project, conds, range, {
    goal,
    serverToo: hasLevel(conds, "event"),
  });
  // Buckets by their first day inside the period (weeks, Monday-based, cut at the period's edges).
  const bucketOf = (ts: string) =>
    interval === "day"
      ? `(${ts} // ${DAY_MS})`
      : `greatest(((${ts} // ${DAY_MS} + 3) // 7) * 7 - 3, ${q.v(period.fromDay)})`;
  const [row] = await deps.engine.query<{
    visitors: number;
    converted: number;
    leads: string[] | null;
    traffic: Keyed[] | null;
    counted: Keyed[] | null;
  }>(
    ...q.bound(`${withs}, ${convertersCte()}, ${populationCte()}
    select
      (select count(*) from pop_people) as visitors,
      (select count(*) from pop_people where converted) as converted,
      ${LEADS} as leads,
      (select list({key: b, visitors: n}) from (select ${bucketOf("ts")} as b, count(distinct visitor_id) as n from visits group by 1)) as traffic,
      (select list({key: b, conversions: n, revenue: m}) from (select ${bucketOf("ts")} as b, sum(counted) as n, sum(revenue) as m from conv group by 1)) as counted`),
  );
  const r = row!;
  const traffic = byKey(r.traffic);
  const counted = byKey(r.counted);
  const dayOfBucket = (ts: number) => {
    const day = Math.floor(ts / DAY_MS);
    return interval === "day" ? day : Math.max(Math.floor((day + 3) / 7) * 7 - 3, period.fromDay);
  };
  const leadsAt = new Map<number, number>();
  for (const t of await leadsCreatedIn(deps, project, r.leads, range))
    leadsAt.set(dayOfBucket(t), (leadsAt.get(dayOfBucket(t)) ?? 0) + 1);
  const points = [];
  for (let day = period.fromDay; day <= period.toDay; ) {
    const c = counted.get(String(day));
    points.push({
      date: isoDay(day),
      visitors: Number(traffic.get(String(day))?.visitors ?? 0),
      leads: leadsAt.get(day) ?? 0,
      conversions: Number(c?.conversions ?? 0),
      revenue: round6(Number(c?.revenue ?? 0)),
    });
    day = interval === "day" ? day + 1 : Math.min(Math.floor((day + 3) / 7) * 7 - 3 + 7, period.toDay + 1);
  }
  return {
    goal,
    interval,
    period: { from: period.from, to: period.to },
    points,
    totals: totalsOf(points, Number(r.visitors), Number(r.converted)),
  };
}

export async function filteredBreakdown(
  deps: ReadDeps,
  project: ProjectRef,
  by: BreakdownDimension,
  period: Period,
  limit: number,
  conds: Condition[],
  goal: GoalRef | null = null,
): Promise<Breakdown> {
  const range = rangeOf(period);
  const q = new EngineQuery();
  const byType = by === "event_type";
  const withs = await selection(q, deps, project, conds, range, { goal, byType, sessionValues: true });
  const none = q.v(NONE_KEY);
  // A visit's key and a conversion's: the event type, the channel (a conversion's as recorded), or
  // the session's value (a conversion's person's first touch).
  const key = byType ? "type" : `coalesce(${by}, ${none})`;
  // The rate's basis: the person's first touch for a session's value; the row's own visitors for a type.
  const basis = byType
    ? `select v.type as k, count(distinct v.visitor_id) as n,
        count(distinct v.visitor_id) filter (where v.person in (select person from converters)) as m
        from visits v group by 1`
    : `select coalesce(ft_${by}, ${none}) as k, count(*) as n, count(*) filter (where converted) as m from pop_people group by 1`;
  const [row] = await deps.engine.query<{
    traffic: Keyed[] | null;
    counted: Keyed[] | null;
    basis: Keyed[] | null;
  }>(
    ...q.bound(`${withs}, ${convertersCte()}, ${populationCte()}
    select
      (select list({key: k, visitors: n}) from (select ${key} as k, count(distinct visitor_id) as n from visits group by 1)) as traffic,
      (select list({key: k, conversions: n, revenue: m}) from (select ${key} as k, sum(counted) as n, sum(revenue) as m from conv group by 1)) as counted,
      (select list({key: k, visitors: n, converted: m}) from (${basis})) as basis`),
  );
  const traffic = byKey(row!.traffic);
  const counted = byKey(row!.counted);
  const bases = byKey(row!.basis);
  const rows: BreakdownRow[] = [...new Set([...traffic.keys(), ...counted.keys(), ...bases.keys()])]
    .map((k) => {
      const b = bases.get(k);
      const c = counted.get(k);
      return {
        key: k,
        visitors: Number(traffic.get(k)?.visitors ?? 0),
        conversions: Number(c?.conversions ?? 0),
        firstTouchVisitors: Number(b?.visitors ?? 0),
        convertedVisitors: Number(b?.converted ?? 0),
        conversionRate: rateOf(Number(b?.converted ?? 0), Number(b?.visitors ?? 0)),
        revenue: round6(Number(c?.revenue ?? 0)),
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

const CREDITS_CHUNK = 500;

/**
 * Attribution over the conversions the filter selects (on the engine), with their credits for the
 * model as analytics stored them (rewritten when a visitor joins a lead, so read from the store).
 */
export async function filteredAttribution(
  deps: ReadDeps,
  project: ProjectRef,
  model: AttributionModel,
  period: Period,
  conds: Condition[],
  goal: GoalRef | null = null,
): Promise<ChannelAttribution> {
  const q = new EngineQuery();
  const withs = await selection(q, deps, project, conds, rangeOf(period), { goal });
  const list = await deps.engine.query<{
    event_id: string;
    counted: number;
    revenue: number;
    channel: string;
  }>(...q.bound(`${withs} select event_id, counted, revenue, channel from conv`));
  const credits = new Map<string, string | null>();
  for (let i = 0; i < list.length; i += CREDITS_CHUNK) {
    const rows = await deps.db
      .selectFrom("analytics_conversions")
      .select(["event_id", "credits"])
      .where(
        "event_id",
        "in",
        list.slice(i, i + CREDITS_CHUNK).map((c) => c.event_id),
      )
      .execute();
    for (const r of rows) credits.set(r.event_id, r.credits);
  }
  const channels = new Map<string, { credited: number; revenue: number }>();
  for (const c of list) {
    const stored = credits.get(c.event_id);
    const byModel = stored
      ? (JSON.parse(stored) as Record<string, Record<string, number>>)[model]
      : undefined;
    for (const [channel, credit] of Object.entries(byModel ?? { [c.channel]: 1 })) {
      const a = channels.get(channel) ?? { credited: 0, revenue: 0 };
      a.credited += Number(c.counted) * credit;
      a.revenue += credit * Number(c.revenue);
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
  deps: ReadDeps,
  project: ProjectRef,
  conds: Condition[],
  range: { from: number; to: number },
): Promise<Set<string>> {
  const q = new EngineQuery();
  const withs = await selection(q, deps, project, conds, range);
  const rows = await deps.engine.query<{ person: string }>(
    ...q.bound(`${withs} select person from visits where not server union select person from conv`),
  );
  return new Set(rows.map((r) => r.person));
}
