import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { ReadDeps } from "../../../platform/deps.js";
import { FUNNEL_BREAKDOWNS, type FunnelBreakdown, NONE_KEY } from "../ingest/dimensions.js";
import type { Condition } from "../filters/filter.js";
import { linksCte, personConditions } from "./people.js";
import {
  type EngineQuery,
  allOf,
  eventConditions,
  globToRegex,
  jsonText,
  personKeySql,
  sessionConditions,
} from "./sql.js";

/** `$."name"`: the property itself, dots and all (as sql.ts's jsonText reads it). */
const jsonPath = (name: string) => `$."${name.replaceAll('"', '\\"')}"`;

/**
 * A funnel as one query on the engine (docs/decisions/identity-analytics.md, "Funnels"). Per
 * person, the step-matching events in order — time, then the earliest step an event matches
 * (events of one millisecond: the one matching an earlier step first), then the event id. For
 * each entry (a first-step event inside the period) step k is the first event after step k-1's
 * matching step k, within the window from the entry. Window functions over each person's later
 * events give every event the time each step is reached from it (n-1 passes, no self-joins); the
 * entry reaching furthest counts, the earliest among equals (one aggregate per person); the answer is the
 * per-step counts and medians, overall and per entry-session value — never the events.
 */

export interface FunnelStep {
  eventType: string;
  /** the event's URL, `*` matching any run of characters (anchored: "*\/pricing*") */
  urlPattern?: string;
  /** values the event's `data` must hold (compared as text) */
  conditions?: Record<string, string | number | boolean>;
}

export interface FunnelQuery {
  steps: FunnelStep[];
  windowMs: number;
  /** entries in [entryFrom, entryTo), epoch ms */
  entryFrom: number;
  entryTo: number;
  breakdownBy?: FunnelBreakdown;
  /** how many groups of a breakdown (ties at the last place are all kept) */
  groups: number;
}

/** One row per group: `g` null for everyone; `c<k>` people reaching step k, `m<k>` the median ms from step k-1. */
export type FunnelRow = { g: string | null } & Record<string, number | string | null>;

/** Whether the event `e` is step `s`: its type, URL and data values (as text, as JS's String() gives them). */
function stepMatch(q: EngineQuery, s: FunnelStep): string {
  const parts = [`e.type = ${q.v(s.eventType)}`];
  // DuckDB-only: regexp_full_match (RE2, the whole text); ClickHouse: match(url, '^(?:…)$'), RE2 too.
  // (DuckDB's regexp_matches with ^…$ is not linear on such patterns: it stalled, measured.)
  if (s.urlPattern) parts.push(`regexp_full_match(e.url, ${q.v(globToRegex(s.urlPattern))})`);
  for (const [key, value] of Object.entries(s.conditions ?? {})) {
    const text = String(value);
    // A JSON null reads as SQL null here, as "null" in JS's String(): only then is it worth asking.
    const held =
      text === "null"
        ? `coalesce(${jsonText(q, "e.data", key)}, cast(json_extract(e.data, ${q.v(jsonPath(key))}) as varchar))`
        : jsonText(q, "e.data", key);
    parts.push(`coalesce(${held} = ${q.v(text)}, false)`);
  }
  return allOf(...parts);
}

/** The funnel's query: the `with …` expressions and the final select, values bound in `q`. */
export async function funnelSql(
  q: EngineQuery,
  deps: ReadDeps,
  project: ProjectRef,
  conds: Condition[],
  f: FunnelQuery,
): Promise<string> {
  const n = f.steps.length;
  const ks = (from: number) => Array.from({ length: n - from }, (_, i) => i + from);
  const p = q.v(project.id);
  const entryFrom = q.v(f.entryFrom);
  const entryTo = q.v(f.entryTo);
  const windowMs = q.v(f.windowMs);
  const session = sessionConditions(q, conds, "s");
  const person = personKeySql("e.visitor_id");
  // A session condition decides who enters: a first-step event counts as an entry only in a
  // session that meets it (a server event has none); later steps count whatever their origin.
  const entryOk = session ? ` and s.session_id is not null and ${session}` : "";
  const stepCols = f.steps.map((s, k) => `(${stepMatch(q, s)}${k === 0 ? entryOk : ""}) as s${k}`).join(", ");
  const hits = `hits as (select ${person} as person, e.id, e.ts, e.session_id, ${stepCols}
    from events e left join links_p l on l.visitor_id = e.visitor_id
    ${session ? "left join sessions s on s.project_id = e.project_id and s.session_id = e.session_id" : ""}
    where ${allOf(
      `e.project_id = ${p} and e.ts >= ${entryFrom} and e.ts < ${entryTo} + ${windowMs}`,
      "not e.is_bot and e.visitor_id <> ''",
      `e.type in ${q.list(new Set(f.steps.map((s) => s.eventType)))}`,
      eventConditions(q, conds, "e"),
      await personConditions(q, deps, project, conds, person, "l.lead_id"),
    )})`;
  const lowest = `case ${ks(0)
    .map((k) => `when s${k} then ${k}`)
    .join(" ")} end`;
  // Each event's place: time, then the earliest step it matches, then its id.
  const later = `(partition by person order by ts, ${lowest}, id rows between 1 following and unbounded following)`;
  // Pass j (from n-1 down to 1) gives each event `a<j>_<k>` for k = j … n-1: the time step k is
  // reached by a chain whose step j is the first step-j event after it. For k = j that is that
  // event's time; for k > j, the least `a<j+1>_<k>` among the step-j events after it — the first of
  // them holds it, because a chain from a later event never ends earlier (times rise with places).
  const passes: string[] = [];
  for (let j = n - 1; j >= 1; j--) {
    const from =
      j === n - 1
        ? `hits where ${ks(0)
            .map((k) => `s${k}`)
            .join(" or ")}`
        : `pass${j + 1}`;
    const cols = ks(j)
      .map((k) =>
        k === j
          ? `min(case when s${k} then ts end) over w as a${j}_${k}`
          : `min(case when s${j} then a${j + 1}_${k} end) over w as a${j}_${k}`,
      )
      .join(", ");
    passes.push(`pass${j} as (select *, ${cols} from ${from} window w as ${later})`);
  }
  // Step k's time from an entry: the chain through the next step-1 event, counted within the window.
  const within = (k: number) => `case when a1_${k} <= ts + ${windowMs} then a1_${k} end`;
  const reached = `case ${ks(1)
    .reverse()
    .map((k) => `when a1_${k} <= ts + ${windowMs} then ${k + 1}`)
    .join(" ")} else 1 end`;
  // Per person the entry reaching furthest, the earliest among equals (least place): one row each.
  const best = `struct_pack(r := -(${reached}), ts := ts, id := id, session_id := session_id, ${ks(1)
    .map((k) => `t${k} := ${within(k)}`)
    .join(", ")})`;
  const tries = `tries as (select person, min(${best}) as b from pass1
    where s0 and ts >= ${entryFrom} and ts < ${entryTo} group by person)`;
  const shaped = `people as (select person, b.session_id as session_id, b.ts as t0, ${ks(1)
    .map((k) => `b.t${k} as t${k}`)
    .join(", ")} from tries)`;
  // ClickHouse: medianExact (its median is approximate).
  const figures = ks(0)
    .map((k) => `count(t${k}) as c${k}${k > 0 ? `, median(t${k} - t${k - 1}) as m${k}` : ""}`)
    .join(", ");
  const withs = `with ${linksCte(q, project)}, ${hits}, ${passes.join(", ")}, ${tries}, ${shaped}`;
  const overall = `select cast(null as varchar) as g, ${figures} from people`;
  if (!f.breakdownBy) return `${withs} ${overall}`;
  if (!FUNNEL_BREAKDOWNS.includes(f.breakdownBy)) throw new Error(`not a funnel breakdown: ${f.breakdownBy}`);
  // A person counts under the values of the session of the entry (a server event's: none).
  return `${withs},
    grouped as (select coalesce(s.${f.breakdownBy}, ${q.v(NONE_KEY)}) as g, pp.*
      from people pp left join sessions s on s.project_id = ${p} and s.session_id = pp.session_id),
    groups as (select g, ${figures}, rank() over (order by count(*) desc) as place from grouped group by g)
    ${overall}
    union all select g, ${ks(0)
      .map((k) => `c${k}${k > 0 ? `, m${k}` : ""}`)
      .join(", ")} from groups where place <= ${q.v(f.groups)}`;
}
