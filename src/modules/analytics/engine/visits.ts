import type { DuckDBConnection, DuckDBValue } from "@duckdb/node-api";
import type { EventTable } from "../../event-store/service.js";
import { type ColumnKind, appendRows } from "./append.js";
import { EVENT_COLUMNS, VISIT_SESSION_VALUES as SESSION_VALUES } from "./ddl.js";
import { pageOfSql } from "./sql.js";

/**
 * The copy's `visits` (ddl.ts): one row per web session, what its web events say — page views,
 * first and last event time, landing URL, entry and exit page, country — so the web view reads a
 * row per visit instead of aggregating its events per question. Kept as events are copied: each
 * page's web events are aggregated per session and merged into the rows, in the page's transaction.
 *
 * A merged row is the row of all the session's events at once, whatever pages they came in and in
 * whatever time order: counts add up, times take the min or max, and each chosen value is the one
 * of the earliest (landing, entry page, country) or latest (exit page) event. Of events at the same
 * time, the one copied first wins — as the web view's aggregate over the events gave it (DuckDB's
 * arg_min/arg_max keep the first value seen on a tie): within a page by its order, across pages the
 * row already held (an earlier page's). Page views' pages add up, as lines of text.
 *
 * A row also holds its session's values (`sessions`' row: start as `session_ts`, channel,
 * dimensions), taken from the session rows the page copies, or when the row is made again after an
 * erasure, from `sessions`; a row made before its session's is held takes them when it comes.
 */

/** A web event's columns a visit is made of, from `events` under `alias`, `ord` its copy order. */
export const visitInputSql = (alias: string, ord: string) =>
  `${alias}.project_id, ${alias}.session_id, ${alias}.visitor_id, ${alias}.type, ${alias}.url, ${alias}.ts,
    ${ord} as ord, ${pageOfSql(`${alias}.url`)} as page,
    json_extract_string(${alias}.data, '$."$country"') as country`;

/** The web events a visit is made of (under `alias`): neither a bot's nor a server's, in a session. */
export const webEventSql = (alias: string) =>
  `not ${alias}.is_bot and not ${alias}.is_server and ${alias}.session_id <> ''`;

/**
 * One row per session of `input` (rows of visitInputSql's columns): the columns of `visits`, in
 * order. Arg-min with a filter and a (time, order) key: ClickHouse's argMinIf of a tuple.
 */
export const visitFactsSql = (input: string) => `select project_id, session_id,
    arg_min(visitor_id, (ts, ord)) as visitor_id,
    (count(*) filter (where type = 'pageview'))::integer as pageviews,
    min(ts) as first_ts, max(ts) as last_ts, arg_min(url, (ts, ord)) as landing_url,
    min(ts) filter (where type = 'pageview') as entry_ts,
    arg_min(page, (ts, ord)) filter (where type = 'pageview') as entry_page,
    max(ts) filter (where type = 'pageview') as exit_ts,
    arg_min(page, (-ts, ord)) filter (where type = 'pageview') as exit_page,
    min(ts) filter (where country is not null) as country_ts,
    arg_min(country, (ts, ord)) filter (where country is not null) as country,
    coalesce(string_agg(${pageLine("page")}, chr(10)) filter (where type = 'pageview'), '') as pages
  from ${input} group by project_id, session_id`;

/**
 * A page as a line of `visits.pages`: a line break in it (a URL cannot hold one, but an SDK may
 * send one) is written as `%0A`, its URL encoding.
 */
const pageLine = (page: string) => `replace(${page}, chr(10), '%0A')`;

/** `visits.pages` (text, one page per line) as a list; none when empty. */
export const pagesListSql = (pages: string) =>
  `(case when ${pages} = '' then []::varchar[] else string_split(${pages}, chr(10)) end)`;

/** Visit facts (visitFactsSql) with their session's values from `sessions` (a table of its shape), by name. */
const withSessionValues = (facts: string, sessions: string | null) =>
  sessions === null
    ? facts
    : `select f.*, s.ts as session_ts, ${SESSION_VALUES.map((c) => `s.${c}`).join(", ")}
      from (${facts}) f left join ${sessions} s on s.project_id = f.project_id and s.session_id = f.session_id`;

/** A value from the page's row `n` when its time beats the held row `v`'s (`cmp`: `<` earliest, `>` latest). */
const pick = (ts: string, value: string, cmp: "<" | ">") =>
  `${value} = case when v.${ts} is null or n.${ts} ${cmp} v.${ts} then n.${value} else v.${value} end`;
const pickTime = (ts: string, cmp: "<" | ">") =>
  `${ts} = case when v.${ts} is null or n.${ts} ${cmp} v.${ts} then n.${ts} else v.${ts} end`;

/**
 * Appends a page of events (rows of EVENT_COLUMNS, in copy order) to `events` and merges their
 * visits, through a temp table the page's visits are aggregated from; `sessions` is a table of the
 * session rows the page copies (null when none). The caller holds the page's transaction.
 */
export async function appendEventsAndVisits(
  duck: DuckDBConnection,
  rows: readonly Record<string, unknown>[],
  kinds: Partial<Record<string, ColumnKind>>,
  sessions: string | null,
): Promise<void> {
  if (rows.length === 0) return;
  await duck.run("create temp table if not exists staged_events as select * from events limit 0");
  await duck.run("delete from staged_events");
  await appendRows(duck, "staged_events", EVENT_COLUMNS, rows, kinds, "temp");
  await duck.run("insert into events select * from staged_events");
  await mergeVisits(duck, "staged_events", sessions);
}

/**
 * Merges the visits of the web events in the temp table `staged` (a page of `events`, in copy
 * order) into `visits`, with their session's values from `sessions` (null: none in this page).
 * The caller holds the page's transaction.
 */
async function mergeVisits(duck: DuckDBConnection, staged: string, sessions: string | null): Promise<void> {
  await duck.run("create temp table if not exists staged_visits as select * from visits limit 0");
  await duck.run("delete from staged_visits");
  await duck.run(
    `insert into staged_visits by name ${withSessionValues(
      visitFactsSql(`(select ${visitInputSql("e", "e.rowid")} from ${staged} e where ${webEventSql("e")})`),
      sessions,
    )}`,
  );
  // (ClickHouse: an AggregatingMergeTree of argMin/argMax states merges such rows by itself.)
  // One join for both: a held row takes the page's (every SET reads the held row's values), a
  // session new to the copy is inserted.
  await duck.run(`merge into visits v using staged_visits n
      on v.project_id = n.project_id and v.session_id = n.session_id
    when matched then update set pageviews = v.pageviews + n.pageviews,
      ${pick("first_ts", "visitor_id", "<")}, ${pick("first_ts", "landing_url", "<")}, ${pickTime("first_ts", "<")},
      last_ts = greatest(v.last_ts, n.last_ts),
      ${pick("entry_ts", "entry_page", "<")}, ${pickTime("entry_ts", "<")},
      ${pick("exit_ts", "exit_page", ">")}, ${pickTime("exit_ts", ">")},
      ${pick("country_ts", "country", "<")}, ${pickTime("country_ts", "<")},
      pages = case when v.pages = '' then n.pages when n.pages = '' then v.pages else v.pages || chr(10) || n.pages end,
      session_ts = coalesce(v.session_ts, n.session_ts),
      ${SESSION_VALUES.map((c) => `${c} = case when v.session_ts is null then n.${c} else v.${c} end`).join(", ")}
    when not matched then insert *`);
}

/**
 * Before events matching `theirs` (over `events`, with `params`) are deleted: notes their sessions
 * and drops those visits. `remadeVisits` then makes them again from the events left.
 */
export async function dropVisitsOf(
  duck: DuckDBConnection,
  theirs: string,
  params: DuckDBValue[],
): Promise<void> {
  await duck.run("create temp table if not exists touched_sessions (project_id varchar, session_id varchar)");
  await duck.run("delete from touched_sessions");
  await duck.run(
    `insert into touched_sessions select distinct project_id, session_id from events
      where (${theirs}) and session_id <> ''`,
    params,
  );
  await duck.run(`delete from visits v using touched_sessions x
    where v.project_id = x.project_id and v.session_id = x.session_id`);
}

/** After the deletion: the visits of the sessions `dropVisitsOf` noted, from their events left. */
export async function remadeVisits(duck: DuckDBConnection): Promise<void> {
  await duck.run(
    `insert into visits by name ${withSessionValues(
      visitFactsSql(`(select ${visitInputSql("e", "e.rowid")} from events e
      join touched_sessions x on x.project_id = e.project_id and x.session_id = e.session_id
      where ${webEventSql("e")})`),
      "sessions",
    )}`,
  );
}

/**
 * Conversion rows (the store's) with `session_id`: their event's session when it is a web event,
 * whose visit the web view counts them in, else null. `events` holds their events.
 */
export function withWebSessions(
  conversions: readonly Record<string, unknown>[],
  events: readonly EventTable[],
): Record<string, unknown>[] {
  const web = new Map<string, string>();
  for (const e of events)
    if (Number(e.is_bot) !== 1 && Number(e.is_server) !== 1 && e.session_id !== "")
      web.set(e.id, e.session_id);
  return conversions.map((c) => ({ ...c, session_id: web.get(String(c.event_id)) ?? null }));
}
