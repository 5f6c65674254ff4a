import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { ReadDeps } from "../../../platform/deps.js";
import type { GoalRef } from "../reports/conversion-model.js";
import { NONE_KEY, SESSION_DIMENSIONS } from "../ingest/dimensions.js";
import type { Condition } from "../filters/filter.js";
import { NUMERIC_MEASURES, type TrendInterval, type TrendMeasure } from "../reports/trends-schema.js";
import { firstTouchCte, linksCte, personConditions } from "./people.js";
import {
  type EngineQuery,
  allOf,
  eventConditions,
  jsonNumber,
  jsonText,
  personKeySql,
  sessionConditions,
} from "./sql.js";

/**
 * Trends in the engine's SQL (trends.ts has the rules): one query a series, giving its measure per
 * bucket and breakdown value (`b`: the bucket's start in epoch ms) and over the whole period
 * (`b` null). The breakdown's values are chosen first, by one query over every series' events.
 */

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** The label of the breakdown values past the top N, together. */
export const OTHER_KEY = "(other)";
/** The series event that means the conversions of the request's goal. */
export const CONVERSION_EVENT = "$conversion";

export interface TrendSeriesSql {
  event: string;
  measure: TrendMeasure;
  property?: string;
  /** the filter's conditions and the series' own */
  conds: Condition[];
}

export interface TrendRange {
  /** [from, to) in epoch ms, whole UTC days */
  from: number;
  to: number;
}

/** What a breakdown reads: a session value, the country, or an event property. */
export interface TrendBreakdownSql {
  key: string;
}

/** The person of an event as everywhere (personKeySql); null for an anonymous server event (no visitor). */
const LEAD = "l.lead_id";
const PERSON = `(case when e.visitor_id <> '' then ${personKeySql("e.visitor_id")} end)`;
/**
 * The same person as two columns (`pk` its lead or visitor id, `pl` whether a lead), for the
 * active-people counts: grouping by them spares building a key text per event.
 */
const PERSON_PAIR = `(case when e.visitor_id <> '' then coalesce(${LEAD}, e.visitor_id) end) as pk, ${LEAD} is not null as pl`;

const SESSION_KEYS = new Set<string>(["channel", ...SESSION_DIMENSIONS]);
const COUNTRY_PROPERTY = "$country";

const isSessionKey = (b: TrendBreakdownSql | null) => b !== null && SESSION_KEYS.has(b.key);

/** Whether a series reads its events' session values (and its server events' first touches). */
const readsSessions = (s: TrendSeriesSql, b: TrendBreakdownSql | null) =>
  isSessionKey(b) || s.conds.some((c) => c.level === "session");

/**
 * The session value `key` of an event: its session's, or a server event's person's first touch
 * (a conversion's session values, "One conversion model"). A web event's channel is on the event.
 */
const sessionValue = (key: string) =>
  `(case when e.is_server then ft.${key} else ${key === "channel" ? "e.channel" : `s.${key}`} end)`;

function breakdownExpr(q: EngineQuery, b: TrendBreakdownSql): string {
  const none = q.v(NONE_KEY);
  if (SESSION_KEYS.has(b.key)) return `coalesce(${sessionValue(b.key)}, ${none})`;
  const property = b.key === "country" ? COUNTRY_PROPERTY : b.key.slice("event.".length);
  return `coalesce(${jsonText(q, "e.data", property)}, ${none})`;
}

/**
 * `first_touch` (people.ts) for the people of the project's server events in the range. The test
 * is written `is_server = true`: DuckDB then applies it to the scan and skips the row groups whose
 * statistics hold no server event (a bare boolean column is an expression tested on every row).
 */
const serverFirstTouch = (q: EngineQuery, project: ProjectRef, range: TrendRange) =>
  firstTouchCte(
    q,
    project,
    `select ${PERSON} as person from events e left join links_p l on l.visitor_id = e.visitor_id
      where e.is_server = true and e.project_id = ${q.v(project.id)} and e.visitor_id <> '' and not e.is_bot
        and e.ts >= ${q.v(range.from)} and e.ts < ${q.v(range.to)}`,
  );

/** A bucket's start (epoch ms) for an event time `ts`: UTC hours, days, Monday weeks, months; cut at `from`. */
export function bucketExpr(q: EngineQuery, interval: TrendInterval, from: number, ts: string): string {
  switch (interval) {
    case "hour":
      return `(${ts} // ${HOUR_MS}) * ${HOUR_MS}`;
    case "day":
      return `(${ts} // ${DAY_MS}) * ${DAY_MS}`;
    case "week":
      return `greatest(((${ts} // ${DAY_MS} + 3) // 7 * 7 - 3) * ${DAY_MS}, ${q.v(from)})`;
    case "month":
      // DuckDB-only: epoch_ms both ways; ClickHouse: toUnixTimestamp64Milli(toStartOfMonth(…)).
      return `greatest(epoch_ms(date_trunc('month', epoch_ms(${ts}))), ${q.v(from)})`;
  }
}

/** What a series' events give besides `ts`, `x` and `g`: no person, its key text, or its pair of columns. */
type PersonOut = "none" | "key" | "pair";

/**
 * The events of a series in [readFrom, to) as `ev(ts, person, x, g)` (`person` as `people` says):
 * `x` the property's number (numeric measures keep only events that have one), `g` the breakdown
 * value (or null). Bots are left out; a session condition or a breakdown by a session value reads
 * the event's session, or for a server event (which has none) its person's first touch — needs
 * `first_touch` then, reached through the visitor (`ft_visitors` holds each of its people's
 * visitors once), so the links are joined only when a person is read.
 */
async function seriesEvents(
  q: EngineQuery,
  deps: ReadDeps,
  project: ProjectRef,
  s: TrendSeriesSql,
  range: { from: number; to: number },
  goal: GoalRef | null,
  breakdown: TrendBreakdownSql | null,
  people: PersonOut,
): Promise<string> {
  const p = q.v(project.id);
  const web = sessionConditions(q, s.conds, "s");
  const server = sessionConditions(q, s.conds, "ft");
  const joinSessions = web !== null || (isSessionKey(breakdown) && breakdown!.key !== "channel");
  const joinFirstTouch = readsSessions(s, breakdown);
  const numeric = s.property !== undefined && NUMERIC_MEASURES.has(s.measure);
  const x = numeric ? jsonNumber(q, "e.data", s.property!) : "cast(null as double)";
  const g = breakdown ? breakdownExpr(q, breakdown) : "cast(null as varchar)";
  const match =
    s.event === CONVERSION_EVENT
      ? `e.id in (select event_id from conversions where project_id = ${p} and counted > 0${
          goal
            ? ` and event_id in (select event_id from goal_hits where project_id = ${p} and goal_key = ${q.v(goal.id)})`
            : ""
        })`
      : `e.type = ${q.v(s.event)}`;
  const personWhere = await personConditions(q, deps, project, s.conds, PERSON, LEAD);
  const joinLinks = people !== "none" || personWhere !== null;
  const person =
    people === "pair"
      ? PERSON_PAIR
      : people === "key"
        ? `${PERSON} as person`
        : "cast(null as varchar) as person";
  return `select e.ts, ${person}, ${x} as x, ${g} as g
    from events e ${joinLinks ? "left join links_p l on l.visitor_id = e.visitor_id" : ""}
    ${joinSessions ? "left join sessions s on s.project_id = e.project_id and s.session_id = e.session_id" : ""}
    ${
      joinFirstTouch
        ? `left join (select fv.visitor_id, f.* from ft_visitors fv join first_touch f on f.person = fv.person) ft
        on e.is_server and ft.visitor_id = e.visitor_id`
        : ""
    }
    where ${allOf(
      `e.project_id = ${p} and e.ts >= ${q.v(range.from)} and e.ts < ${q.v(range.to)} and not e.is_bot`,
      match,
      eventConditions(q, s.conds, "e"),
      web &&
        `coalesce(case when e.is_server then ft.person is not null and ${server} else s.session_id is not null and ${web} end, false)`,
      personWhere,
      numeric ? `${x} is not null` : null,
    )}`;
}

/**
 * The top `limit` breakdown values by events of all series in the range, and one more (which says
 * whether there are others).
 */
export async function breakdownValuesSql(
  q: EngineQuery,
  deps: ReadDeps,
  project: ProjectRef,
  series: TrendSeriesSql[],
  range: TrendRange,
  goal: GoalRef | null,
  breakdown: TrendBreakdownSql,
  limit: number,
): Promise<string> {
  const parts: string[] = [];
  for (const s of series) parts.push(await seriesEvents(q, deps, project, s, range, goal, breakdown, "none"));
  const ft = series.some((s) => readsSessions(s, breakdown))
    ? `, ${serverFirstTouch(q, project, range)}`
    : "";
  return `with ${linksCte(q, project)}${ft}
    select g, count(*) as n from (${parts.join("\n    union all\n    ")}) t
    group by g order by n desc, g limit ${q.v(limit + 1)}`;
}

/** Days an active-people count reads (range and window) for which it keeps each person's days as bits of a UHUGEINT. */
const MASK_DAYS = 128;

/** Days in the active-people window ending with each day. */
export const ACTIVE_DAYS: Partial<Record<TrendMeasure, number>> = { dau: 1, wau: 7, mau: 30 };

const AGGREGATE: Record<Exclude<TrendMeasure, "dau" | "wau" | "mau">, string> = {
  total: "count(*)",
  unique_people: "count(distinct person)",
  sum: "sum(x)",
  avg: "avg(x)",
  min: "min(x)",
  max: "max(x)",
  // Exact, interpolated between the two nearest values. DuckDB: quantile_cont; ClickHouse: quantileExactInclusive.
  median: "quantile_cont(x, 0.5)",
  p90: "quantile_cont(x, 0.9)",
};

/**
 * One series' query: rows `(b, g, v)` — the measure per bucket `b` and breakdown value `g`, and
 * with `b` null over the whole range (active people: `v` holds from day `b` until the next row).
 * `values`: the breakdown's top values (the rest are "(other)").
 */
export async function trendSeriesSql(
  q: EngineQuery,
  deps: ReadDeps,
  project: ProjectRef,
  s: TrendSeriesSql,
  range: TrendRange,
  interval: TrendInterval,
  goal: GoalRef | null,
  breakdown: { sql: TrendBreakdownSql; values: string[] } | null,
): Promise<string> {
  const days = ACTIVE_DAYS[s.measure];
  // An active-people window reaches back before the first day of the range.
  const readFrom = days ? range.from - (days - 1) * DAY_MS : range.from;
  const events = await seriesEvents(
    q,
    deps,
    project,
    s,
    { from: readFrom, to: range.to },
    goal,
    breakdown?.sql ?? null,
    days ? "pair" : "key",
  );
  // One bound list tested per event (an empty one is bound as null: every value is then "(other)").
  const g = breakdown
    ? `case when coalesce(list_contains(${q.v(breakdown.values)}::varchar[], g), false) then g else ${q.v(OTHER_KEY)} end`
    : "g";
  const ft = readsSessions(s, breakdown?.sql ?? null)
    ? `, ${serverFirstTouch(q, project, { from: readFrom, to: range.to })}`
    : "";
  const cols = days ? "pk, pl" : "person";
  const withs = `with ${linksCte(q, project)}${ft}, ev as (select ts, ${cols}, x, ${g} as g from (${events}) t)`;
  if (days) {
    const first = readFrom / DAY_MS;
    const read = (range.to - readFrom) / DAY_MS;
    const w = q.v(days - 1);
    if (read <= MASK_DAYS) {
      // Each person's active days as the bits of one number (bit i: day first + i), one row per
      // person and value; people with the same days and value count together (few rows: the same
      // days recur), and day j has the people with a bit among days j-days+1 … j. One aggregate
      // over the events instead of a row per person and day and a window over those.
      return `${withs},
      m as (select g, bit_or(1::uhugeint << (ts // ${DAY_MS} - ${q.v(first)})::uhugeint) as m from ev where pk is not null group by pk, pl, g),
      cm as (select g, m, count(*) as n from m group by g, m)
      select (${q.v(first)} + j) * ${DAY_MS} as b, g,
        coalesce(sum(n) filter (where (m >> (j - ${w})::uhugeint) & ((1::uhugeint << ${q.v(days)}::uhugeint) - 1) <> 0), 0) as v
      from cm, (select unnest(range(${w}, ${q.v(read)})) as j) days group by j, g
      union all
      select null as b, g, sum(n) as v from cm where (m >> ${w}::uhugeint) <> 0 group by g`;
    }
    // Longer: a person active on day d is in the windows of days d … d+days-1: per person and value, each
    // active day opens a span up to that or the next active day, whichever comes first, so spans
    // never overlap and a running sum of their starts (+1) and ends (-1) is the distinct count —
    // rows change only where the count does (the caller carries each value forward to later days).
    return `${withs},
      act as (select distinct pk, pl, g, ts // ${DAY_MS} as d from ev where pk is not null),
      spans as (select g, d, least(d + ${days}, coalesce(lead(d) over (partition by pk, pl, g order by d), d + ${days})) as e from act),
      deltas as (select g, day, sum(c) as c from (select g, d as day, 1 as c from spans union all select g, e as day, -1 as c from spans) x group by g, day)
      select day * ${DAY_MS} as b, g, sum(c) over (partition by g order by day rows between unbounded preceding and current row) as v from deltas
      union all
      select null as b, g, sum(n) as v from (select g, pl, count(distinct pk) as n from act where d >= ${q.v(range.from / DAY_MS)} group by g, pl) t group by g`;
  }
  const agg = AGGREGATE[s.measure as keyof typeof AGGREGATE];
  return `${withs}
    select b, g, ${agg} as v from (select ${bucketExpr(q, interval, range.from, "ts")} as b, person, x, g from ev) t
    group by grouping sets ((b, g), (g))`;
}
