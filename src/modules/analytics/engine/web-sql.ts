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
  pageOfSql,
  personKeySql,
  sessionConditions,
  urlParamSql,
} from "./sql.js";
import { bucketExpr } from "./trends-sql.js";
import { visitFactsSql, visitInputSql } from "./visits.js";

/**
 * The web view in the engine's SQL (reports/web.ts has the rules). Everything is a visit's: the
 * filter selects web sessions that started in the range, and each visit carries what its own web
 * events say — page views, first and last event, landing URL, entry and exit page, country, the
 * goal's conversions — as `vis`, read from the copy's `visits` (visits.ts), a row per visit. The
 * headline, the chart, the lists and the breakdown are groupings over `vis`; pages group the page
 * views themselves. All but the headline (two periods) go in one query (partsSql), over one `vis`.
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
 * its session's values, `cur` — started at or after `split` —, `pageviews`, `dur` in ms,
 * `landing_url`, `entry_page`, `exit_page`, `country`, `conversions`), and their page views as
 * `ev` (`page` their URL's page).
 *
 * A visit is what its web events within the span say, from the range's start to a day after its
 * end (an event backdated before the range is not the period's). The copy's `visits` hold what all
 * of a session's events say: the same, for a visit whose events all lie within the span.
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
  const sel = `sel as (select s.session_id, s.visitor_id, s.ts, s.channel, s.source, s.campaign, s.device, s.browser, s.os,
      s.ts >= ${q.v(split)} as cur
    from sessions s ${links}
    where ${allOf(
      `s.project_id = ${p} and s.ts >= ${from} and s.ts < ${to}`,
      sessionConditions(q, conds, "s"),
      person,
      event && `s.session_id in (select e.session_id from events e where ${webEvents} and ${event})`,
    )})`;
  // Each visit's facts within the span: a kept row whose events all lie within it is read as it
  // is; a visit across the span's edge (a few) is aggregated from its events within; any other
  // visit has no event within, so no facts, as before.
  const facts =
    "session_id, pageviews, last_ts - first_ts as dur, landing_url, entry_page, exit_page, country";
  const inSpan = `v.first_ts >= ${from} and v.last_ts < ${tail}`;
  const span = `span as (select ${facts} from visits v where v.project_id = ${p} and ${inSpan}
    union all select ${facts} from (${visitFactsSql(`(select ${visitInputSql("e", "e.rowid")} from events e
      where ${webEvents} and e.session_id in (select session_id from visits v where v.project_id = ${p}
        and v.first_ts < ${tail} and v.last_ts >= ${from} and not (${inSpan})))`)}))`;
  const hit = goal
    ? ` and c.event_id in (select event_id from goal_hits where project_id = ${p} and goal_key = ${q.v(goal.id)})`
    : "";
  // A conversion's time is its event's, and `session_id` its event's web session.
  const conv = `conv_s as (select c.session_id, sum(c.counted) as n from conversions c
    where c.project_id = ${p} and c.ts >= ${from} and c.ts < ${tail}${hit}
      and c.session_id in (select session_id from sel) group by c.session_id)`;
  const vis = `vis as (select sel.*, coalesce(a.pageviews, 0) as pageviews, coalesce(a.dur, 0) as dur, a.landing_url,
      a.entry_page, a.exit_page, a.country, coalesce(cs.n, 0) as conversions
    from sel left join span a on a.session_id = sel.session_id left join conv_s cs on cs.session_id = sel.session_id)`;
  // Pages group the selected visits' page views themselves. Leaving out, with no filter, the page
  // views of the few visits in the span not selected, instead of testing each against `sel`, cost
  // more: the visits joined to the span had then to be kept for both.
  const ev = `ev as (select e.session_id, e.visitor_id, e.type, ${pageOfSql("e.url")} as page
    from events e where ${webEvents} and e.type = 'pageview' and e.session_id in (select session_id from sel))`;
  return `with ${linksCte(q, project)}, ${sel}, ${span}, ${conv}, ${vis}, ${ev}`;
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
 * Lists of visits by their values, all in one grouping: rows `(g, value, …)`, `g` the index of
 * the key in `keys`, the top `limit` of each by visitors, and one more.
 * (GROUPING SETS, grouping() and windows: ClickHouse has them too.)
 */
export const visitListsSql = (q: EngineQuery, withs: string, keys: WebBreakdownKey[], limit: number) => {
  const none = q.v(NONE_KEY);
  const cols = keys.map((k, i) => `coalesce(${VISIT_VALUE[k]}, ${none}) as k${i}`).join(", ");
  const which = keys.map((_, i) => `when grouping(k${i}) = 0 then ${i}`).join(" ");
  const value = keys.length === 1 ? "k0" : `coalesce(${keys.map((_, i) => `k${i}`).join(", ")})`;
  return `${withs}
  select * from (select *, row_number() over (partition by g order by visitors desc, visits desc, value) as n
    from (select case ${which} end as g, ${value} as value, count(distinct visitor_id) as visitors,
        count(*) as visits, sum(pageviews) as pageviews, sum(conversions) as conversions
      from (select ${cols}, visitor_id, pageviews, conversions from vis v) t
      group by grouping sets (${keys.map((_, i) => `(k${i})`).join(", ")})) lists) r
  where n <= ${q.v(limit + 1)}`;
};

/** Top pages: page views of each page in the visits, the visits and visitors that viewed it; `n` their order. */
export const pagesSql = (q: EngineQuery, withs: string, limit: number) => `${withs}
  select page as value, count(distinct visitor_id) as visitors, count(distinct session_id) as visits,
    count(*) as pageviews, row_number() over (order by count(*) desc, count(distinct visitor_id) desc, page) as n
  from ev where type = 'pageview' group by page
  order by pageviews desc, visitors desc, page limit ${q.v(limit + 1)}`;

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
