import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { ReadDeps } from "../../../platform/deps.js";
import { NONE_KEY } from "../ingest/dimensions.js";
import type { GoalRef } from "../reports/conversion-model.js";
import type { TrendInterval } from "../reports/trends-schema.js";
import type { WebBreakdownKey } from "../reports/web-schema.js";
import type { Condition } from "../filters/filter.js";
import { linksCte, personConditions } from "./people.js";
import {
  type EngineQuery,
  allOf,
  eventConditions,
  personKeySql,
  sessionConditions,
  urlParamSql,
} from "./sql.js";
import { bucketExpr } from "./trends-sql.js";
import { pagesListSql, visitFactsSql, visitInputSql } from "./visits.js";

/**
 * The web view in the engine's SQL (reports/web.ts has the rules). Everything is a visit's: the
 * filter selects web sessions that started in the range, and each visit carries what its own web
 * events say — page views and their pages, first and last event, landing URL, entry and exit page,
 * country, the goal's conversions — as `vis`, read from the copy's `visits` (visits.ts), a row per
 * visit that also holds its session's values, so nothing is joined to it but the few visits
 * across the span's edge and the goal's conversions. The headline, the chart, the lists, the pages
 * and the breakdown are groupings over `vis`. All but the headline (two periods) go in one query
 * (partsSql), over one `vis`.
 */

const DAY_MS = 86_400_000;
/** A visit started in the range may run past its end: its events are read up to a day later. */
const TAIL_MS = DAY_MS;

export interface WebRange {
  from: number;
  to: number;
}

/** A visit's value for a list or breakdown key, over `vis` as `v`. */
export const VISIT_VALUE: Record<WebBreakdownKey, string> = {
  channel: "v.channel",
  source: "v.source",
  utm_source: urlParamSql("v.landing_url", "utm_source"),
  utm_medium: urlParamSql("v.landing_url", "utm_medium"),
  // The session's own campaign (trimmed utm_campaign), which the filter keys `campaign` and
  // `utm_campaign` read; the other tags are the landing URL's, as the filter reads them (sql.ts).
  utm_campaign: "v.campaign",
  utm_term: urlParamSql("v.landing_url", "utm_term"),
  utm_content: urlParamSql("v.landing_url", "utm_content"),
  entry_page: "v.entry_page",
  exit_page: "v.exit_page",
  country: "v.country",
  device: "v.device",
  browser: "v.browser",
  os: "v.os",
};

/**
 * `with …` the visits of [range.from, range.to) that meet the filter, as `vis` (one row each:
 * its session's values, `ts` its start, `cur` — started at or after `split` —, `pageviews`, `pages`
 * (a page per page view), `dur` in ms, `landing_url`, `entry_page`, `exit_page`, `country`,
 * `conversions`).
 *
 * A visit is what its web events within the span say, from the range's start to a day after its
 * end (an event backdated before the range is not the period's). The copy's `visits` hold what all
 * of a session's events say: the same, for a visit whose events all lie within the span; the few
 * across its edge are aggregated from their events within it.
 */
export async function visitsCte(
  q: EngineQuery,
  deps: ReadDeps,
  project: ProjectRef,
  conds: Condition[],
  range: WebRange,
  split: number,
  goal: GoalRef | null,
): Promise<string> {
  const p = q.v(project.id);
  const from = q.v(range.from);
  const to = q.v(range.to);
  const tail = q.v(range.to + TAIL_MS);
  const webEvents = `e.project_id = ${p} and e.ts >= ${from} and e.ts < ${tail} and not e.is_bot and not e.is_server`;
  const event = eventConditions(q, conds, "e");
  const person = await personConditions(q, deps, project, conds, personKeySql("s.visitor_id"), "l.lead_id");
  // A visitor has one link at most (copy.ts replaces it), so the join only adds what person conditions read.
  const links = person ? "left join links_p l on l.visitor_id = s.visitor_id" : "";
  const started = (v: string) =>
    `${v}.project_id = ${p} and ${v}.session_ts >= ${from} and ${v}.session_ts < ${to}`;
  const inSpan = (v: string) => `${v}.first_ts >= ${from} and ${v}.last_ts < ${tail}`;
  // Read once, in `vis` (a CTE read more than once is materialized: this one is not).
  const sel = `select s.session_id, s.visitor_id, s.session_ts as ts, s.channel, s.source, s.campaign, s.device,
      s.browser, s.os, s.session_ts >= ${q.v(split)} as cur, ${inSpan("s")} as in_span, s.pageviews, s.pages,
      s.last_ts - s.first_ts as dur, s.landing_url, s.entry_page, s.exit_page, s.country
    from visits s ${links}
    where ${allOf(
      started("s"),
      sessionConditions(q, conds, "s"),
      person,
      event && `s.session_id in (select e.session_id from events e where ${webEvents} and ${event})`,
    )}`;
  // The facts within the span of the range's visits across its edge (of any visit that started in
  // the range: those not selected are not joined).
  const edge = `edge as (${visitFactsSql(`(select ${visitInputSql("e", "e.rowid")} from events e
      where ${webEvents} and e.session_id in (select session_id from visits v where ${started("v")} and not (${inSpan("v")})))`)})`;
  const hit = goal
    ? ` and c.event_id in (select event_id from goal_hits where project_id = ${p} and goal_key = ${q.v(goal.id)})`
    : "";
  // A conversion's time is its event's, and `session_id` its event's web session.
  const conv = `conv_s as (select c.session_id, sum(c.counted) as n from conversions c
    where c.project_id = ${p} and c.ts >= ${from} and c.ts < ${tail}${hit} and c.session_id is not null
    group by c.session_id)`;
  const fact = (c: string, none = "null") =>
    `case when sel.in_span then sel.${c} else coalesce(a.${c}, ${none}) end as ${c}`;
  const vis = `vis as (select sel.session_id, sel.visitor_id, sel.ts, sel.channel, sel.source, sel.campaign,
      sel.device, sel.browser, sel.os, sel.cur, ${fact("pageviews", "0")}, ${fact("pages", "''")},
      case when sel.in_span then sel.dur else coalesce(a.last_ts - a.first_ts, 0) end as dur,
      ${fact("landing_url")}, ${fact("entry_page")}, ${fact("exit_page")}, ${fact("country")},
      coalesce(cs.n, 0) as conversions
    from (${sel}) sel left join edge a on a.session_id = sel.session_id
      left join conv_s cs on cs.session_id = sel.session_id)`;
  return `with ${linksCte(q, project)}, ${edge}, ${conv}, ${vis}`;
}

/** The headline per period (`cur`): visitors, visits, page views, bounces, mean duration (ms), conversions. */
export const headlineSql = (withs: string) => `${withs}
  select cur, count(distinct visitor_id) as visitors, count(*) as visits, sum(pageviews) as pageviews,
    count(*) filter (where pageviews = 1) as bounces, avg(dur) as dur, sum(conversions) as conversions,
    count(*) filter (where conversions > 0) as converted
  from vis group by cur`;

/** Visitors, visits and page views per bucket of the visits' starts (`b`, epoch ms). */
export const chartSql = (q: EngineQuery, withs: string, interval: TrendInterval, from: number) => `${withs}
  select b, count(distinct visitor_id) as visitors, count(*) as visits, sum(pageviews) as pageviews
  from (select ${bucketExpr(q, interval, from, "ts")} as b, visitor_id, pageviews from vis) t group by b`;

/**
 * Lists of visits by their values: rows `(g, value, …)`, `g` the index of the key in `keys`, the
 * top `limit` of each by visitors, and one more. A grouping per key over the keys' values made
 * once: DuckDB's GROUPING SETS with a distinct count cost twice as much.
 */
export const visitListsSql = (q: EngineQuery, withs: string, keys: WebBreakdownKey[], limit: number) => {
  const none = q.v(NONE_KEY);
  const cols = keys.map((k, i) => `coalesce(${VISIT_VALUE[k]}, ${none}) as k${i}`).join(", ");
  const lists = keys.map(
    (_, i) => `select ${i} as g, k${i} as value, count(distinct visitor_id) as visitors, count(*) as visits,
        sum(pageviews) as pageviews, sum(conversions) as conversions from kv group by k${i}`,
  );
  const kv = `kv as (select ${cols}, visitor_id, pageviews, conversions from vis v)`;
  return `${withs ? `${withs}, ${kv}` : `with ${kv}`}
  select * from (select *, row_number() over (partition by g order by visitors desc, visits desc, value) as n
    from (${lists.join("\n      union all ")}) lists) r
  where n <= ${q.v(limit + 1)}`;
};

/**
 * Top pages: page views of each page in the visits, the visits and visitors that viewed it; `n` their
 * order. A visit's pages are counted per visit first (ClickHouse: arrayJoin of a map).
 */
export const pagesSql = (q: EngineQuery, withs: string, limit: number) => `${withs}
  select page as value, count(distinct visitor_id) as visitors, count(*) as visits, sum(views) as pageviews,
    row_number() over (order by sum(views) desc, count(distinct visitor_id) desc, page) as n
  from (select visitor_id, unnest(map_entries(list_aggregate(${pagesListSql("pages")}, 'histogram')), recursive := true)
      from vis)
    t(visitor_id, page, views)
  group by page order by pageviews desc, visitors desc, page limit ${q.v(limit + 1)}`;

/** Visits by two of their values, with their bounce rate and mean duration (ms); `n` their order. */
export const breakdownSql = (q: EngineQuery, withs: string, keys: WebBreakdownKey[], limit: number) => {
  const none = q.v(NONE_KEY);
  const cols = keys.map((k, i) => `coalesce(${VISIT_VALUE[k]}, ${none}) as k${i}`).join(", ");
  const ks = keys.map((_, i) => `k${i}`).join(", ");
  return `${withs}
  select ${ks}, count(distinct visitor_id) as visitors, count(*) as visits, sum(pageviews) as pageviews,
    count(*) filter (where pageviews = 1) as bounces, avg(dur) as dur,
    row_number() over (order by count(distinct visitor_id) desc, count(*) desc, ${ks}) as n
  from (select ${cols}, visitor_id, pageviews, dur from vis v) t
  group by ${ks} order by visitors desc, visits desc, ${ks} limit ${q.v(limit + 1)}`;
};

/**
 * Several of the queries above (each built with no `withs` of its own) over one `vis` and `ev`,
 * made once: the visits' scan and aggregate are most of each query's time. Rows `(part, r)`: the
 * query's index and its row as a JSON object. (ClickHouse: toJSONString of a tuple.)
 */
export const partsSql = (withs: string, parts: string[]) => `${withs},
  ${parts.map((p, i) => `p${i} as (${p})`).join(",\n  ")}
  ${parts.map((_, i) => `select ${i} as part, to_json(p${i}) as r from p${i}`).join("\n  union all ")}`;
