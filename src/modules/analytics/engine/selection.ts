import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { ReadDeps } from "../../../platform/deps.js";
import type { GoalRef } from "../reports/conversion-model.js";
import { NONE_KEY, SESSION_DIMENSIONS } from "../ingest/dimensions.js";
import { type Condition, hasLevel } from "../filters/filter.js";
import { firstTouchCte, linksCte, personConditions } from "./people.js";
import { type EngineQuery, allOf, eventConditions, personKeySql, sessionConditions } from "./sql.js";

/**
 * What a filter selects (docs/decisions/identity-analytics.md, "Filters and cohorts"), as the
 * common table expressions every filtered report builds on:
 * - `visits`: a web session started in the range whose values meet the session conditions — or,
 *   with event conditions (or a report by event type), a web event in the range that meets them,
 *   in a session that meets the session conditions; only people who meet the person conditions;
 * - `conv`: conversions in the range (of the goal, or any), whose event meets the event conditions
 *   and whose person's first touch meets the session conditions (the channel: the one recorded);
 * - `first_touch` for the people of both, `links_p` beneath them.
 */

/** [from, to) in epoch ms */
export interface Range {
  from: number;
  to: number;
}

export interface SelectionOptions {
  /** visits are events (their type is a report's key) */
  byType?: boolean;
  /** with event conditions, server events that meet them count their visitor too ("people who did X") */
  serverToo?: boolean;
  /** conversions of this goal only (null: any conversion goal) */
  goal?: GoalRef | null;
  /** visits from events carry their session's values (a report by a session value) */
  sessionValues?: boolean;
}

/** `with …` the selection's expressions; `extra` adds a report's own after them. */
export async function selection(
  q: EngineQuery,
  deps: ReadDeps,
  project: ProjectRef,
  conds: Condition[],
  range: Range,
  opts: SelectionOptions = {},
): Promise<string> {
  const p = q.v(project.id);
  const from = q.v(range.from);
  const to = q.v(range.to);
  const people = (person: string) => personConditions(q, deps, project, conds, person, "l.lead_id");
  const fromEvents = opts.byType || hasLevel(conds, "event");
  let visits: string;
  if (!fromEvents) {
    visits = `visits as (select s.visitor_id, ${personKeySql("s.visitor_id")} as person, l.lead_id, s.channel, s.ts,
      s.session_id, cast(null as varchar) as type, false as server, ${SESSION_DIMENSIONS.map((d) => `s.${d}`).join(", ")}
      from sessions s left join links_p l on l.visitor_id = s.visitor_id
      where ${allOf(`s.project_id = ${p} and s.ts >= ${from} and s.ts < ${to}`, sessionConditions(q, conds, "s"), await people(personKeySql("s.visitor_id")))})`;
  } else {
    const session = sessionConditions(q, conds, "s");
    // The sessions are joined only when a condition or the report reads their values: the period's
    // events against every session is most of such a query's time otherwise.
    const joinSessions = session !== null || opts.sessionValues === true;
    const values = SESSION_DIMENSIONS.map((d) => (joinSessions ? `s.${d}` : `cast(null as varchar) as ${d}`));
    visits = `visits as (select e.visitor_id, ${personKeySql("e.visitor_id")} as person, l.lead_id, e.channel, e.ts,
      e.session_id, e.type, e.is_server as server, ${values.join(", ")}
      from events e left join links_p l on l.visitor_id = e.visitor_id
      ${joinSessions ? "left join sessions s on s.project_id = e.project_id and s.session_id = e.session_id" : ""}
      where ${allOf(
        `e.project_id = ${p} and e.ts >= ${from} and e.ts < ${to} and not e.is_bot and e.visitor_id <> ''`,
        opts.serverToo ? null : "not e.is_server",
        eventConditions(q, conds, "e"),
        session && `s.session_id is not null and ${session}`,
        await people(personKeySql("e.visitor_id")),
      )})`;
  }
  const goal = opts.goal
    ? `c.event_id in (select event_id from goal_hits where project_id = ${p} and goal_key = ${q.v(opts.goal.id)})`
    : null;
  const event = eventConditions(q, conds, "e");
  const convAll = `conv_all as (select c.event_id, c.visitor_id, ${personKeySql("c.visitor_id")} as person, l.lead_id,
    c.type, c.ts, c.revenue, c.counted, c.currency, c.channel
    from conversions c left join links_p l on l.visitor_id = c.visitor_id
    where ${allOf(
      `c.project_id = ${p} and c.ts >= ${from} and c.ts < ${to}`,
      goal,
      await people(personKeySql("c.visitor_id")),
      event &&
        `exists (select 1 from events e where e.project_id = ${p} and e.id = c.event_id and e.ts >= ${from} and e.ts < ${to} and not e.is_bot and ${event})`,
    )})`;
  const firstTouch = firstTouchCte(q, project, "select person from visits union select person from conv_all");
  // A conversion's session values: its recorded channel, and its person's first touch for the rest
  // (`session_id`: the first touch's, for the values read from its landing URL).
  const conv = `conv as (select x.* from (select ca.*, ${[...SESSION_DIMENSIONS, "session_id"].map((d) => `ft.${d}`).join(", ")}
    from conv_all ca left join first_touch ft on ft.person = ca.person) x where ${allOf(sessionConditions(q, conds, "x"))})`;
  return `with ${linksCte(q, project)}, ${visits}, ${convAll}, ${firstTouch}, ${conv}`;
}

/**
 * `pop_people(visitor_id, person, converted, ft_channel, ft_<dimension>…)`: the visitors of
 * `visits` (the rate's population), each with its person, whether that person is among
 * `converters`, and its first touch (conversion-model.ts's definitions).
 */
export const populationCte = () =>
  `pop_people as (select pp.visitor_id, pp.person, pp.person in (select person from converters) as converted,
    ft.channel as ft_channel, ${SESSION_DIMENSIONS.map((d) => `ft.${d} as ft_${d}`).join(", ")}
    from (select distinct visitor_id, person from visits) pp left join first_touch ft on ft.person = pp.person)`;

/**
 * `converters(person)`: people with a counted conversion among `source` (`conv`, or `conv_all` to
 * ignore the session conditions); anonymous server conversions are nobody's.
 */
export const convertersCte = (source: "conv" | "conv_all" = "conv") =>
  `converters as (select distinct person from ${source} where counted > 0 and person <> 'v:')`;

/** A first-touch key's value in `pop_people`, `(none)` when the person never visited. */
export const firstTouchValue = (q: EngineQuery, key: "channel" | (typeof SESSION_DIMENSIONS)[number]) =>
  `coalesce(ft_${key}, ${q.v(NONE_KEY)})`;
