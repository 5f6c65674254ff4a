import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { ReadDeps } from "../../../platform/deps.js";
import type { CohortDefinitionT } from "../cohorts/schema.js";
import { conditionAt, parseFilter, testValue } from "../filters/filter.js";
import { leadIdsHolding } from "../filters/lead-reader.js";
import { DAY_MS } from "../ingest/rollup-store.js";
import { type EngineQuery, allOf, eventConditions, personKeySql } from "./sql.js";

/**
 * A cohort's membership as one query on the engine (cohorts.ts has the rules): every condition
 * must hold for a person (`l:<lead>` for a linked visitor, else `v:<visitor>`). Event conditions
 * read the copy's `events` and `links`; lead properties resolve to the leads that hold them
 * (identity's store, bound as a list), as report filters do (people.ts).
 * Plain SQL (group by / having, intersect, union, a left join on true) but for the bound lists:
 * `unnest($n::varchar[])` is DuckDB's (ClickHouse: `arrayJoin`).
 */

/** A condition's window as whole UTC days [fromDay, toDay]; cohorts.ts checks and computes it. */
export interface DayWindow {
  fromDay: number;
  toDay: number;
}

export interface CohortSqlOptions {
  /** flag targeting: browser-written lead properties count as missing */
  serverOnly?: boolean;
  /** each event condition's window, in the definition's order (event conditions only) */
  windows: (DayWindow | null)[];
}

/**
 * `select person from …`: the definition's members now, each once. A person must be in every
 * "did" set and lead list, in no "did not" set, and (for a property a visitor without a lead
 * holds: is_not, not_set …) anonymous or a holding lead. With no condition that names its people,
 * everyone is the candidate: every person seen in a non-bot event, and every lead.
 */
export async function cohortSql(
  q: EngineQuery,
  deps: ReadDeps,
  project: ProjectRef,
  def: CohortDefinitionT,
  opts: CohortSqlOptions,
): Promise<string> {
  const p = q.v(project.id);
  const person = personKeySql("e.visitor_id");
  const fromEvents = (where: string) => `select ${person} as person from events e
    left join links l on l.project_id = e.project_id and l.visitor_id = e.visitor_id
    where e.project_id = ${p} and not e.is_bot and e.visitor_id <> '' and ${where}`;
  const named: string[] = [];
  const tests: string[] = [];
  /** the leads a visitor without a lead shares the candidates with (the first such condition's) */
  let holdingLeads: string | null = null;
  for (const [i, c] of def.conditions.entries()) {
    if (c.type === "event") {
      const w = opts.windows[i]!;
      const where = allOf(
        `e.type = ${q.v(c.event)}`,
        `e.ts >= ${q.v(w.fromDay * DAY_MS)} and e.ts < ${q.v((w.toDay + 1) * DAY_MS)}`,
        eventConditions(q, parseFilter(c.where ?? [], "where"), "e"),
      );
      const did = `${fromEvents(where)} group by 1 having count(*) >= ${q.v(c.atLeast ?? 1)}`;
      if (c.did === false) tests.push(`m.person not in (${did})`);
      else named.push(did);
    } else {
      const cond = conditionAt({ key: `lead.${c.property}`, op: c.op, value: c.value }, `conditions[${i}]`);
      const ids = await leadIdsHolding(deps.db, project, cond, { serverOnly: opts.serverOnly });
      const holding = leadKeys(q, ids);
      if (!testValue(cond, null)) named.push(holding);
      else {
        tests.push(`(m.person like 'v:%' or m.person in (${holding}))`);
        holdingLeads ??= holding;
      }
    }
  }
  let candidates: string;
  if (named.length > 0) candidates = named.map((s) => `(${s})`).join(" intersect ");
  else {
    const allLeads = holdingLeads ?? leadKeys(q, await leadIdsHolding(deps.db, project, null));
    candidates = `(${fromEvents("true")}) union (${allLeads})`;
  }
  return `select m.person from (${candidates}) m where ${allOf(...tests)}`;
}

/**
 * `select person`: the leads' person keys. No list is bound when there are none: an empty list
 * has no element type for DuckDB.
 */
const leadKeys = (q: EngineQuery, ids: Set<string>) =>
  ids.size === 0
    ? "select cast(null as varchar) as person where false"
    : `select 'l:' || unnest(${q.v([...ids])}::varchar[]) as person`;

/**
 * One page of a membership query's people in key order after `after`, with the total: rows
 * `(total, person)`, person null when the page is empty.
 */
export const memberPageSql = (q: EngineQuery, members: string, after: string | null, limit: number) =>
  `with members as (${members})
  select t.total, pg.person from (select count(*) as total from members) t
  left join (select person from members where ${after === null ? "true" : `person > ${q.v(after)}`}
    order by person limit ${q.v(limit)}) pg on true
  order by pg.person`;

/** `select count(*) as n` of a membership query. */
export const memberCountSql = (members: string) => `select count(*) as n from (${members}) c`;

/**
 * The ids flag targeting tests a membership query's people on, rows `(attribute, value)`: a
 * member lead's id under `leadId`, and under `id` every visitor whose person is a member (an
 * anonymous member's own id, a member lead's linked visitors). At most `limit` rows per attribute.
 */
export const memberIdsSql = (q: EngineQuery, project: ProjectRef, members: string, limit: number) =>
  `with members as (${members}),
  ids as (
    select 'leadId' as attribute, substr(person, 3) as value from members where person like 'l:%'
    union
    select 'id', substr(person, 3) from members where person like 'v:%'
    union
    select 'id', l.visitor_id from links l join members m on m.person = 'l:' || l.lead_id
    where l.project_id = ${q.v(project.id)}
  ),
  ranked as (select attribute, value, row_number() over (partition by attribute order by value) as n from ids)
  select attribute, value from ranked where n <= ${q.v(limit)}`;
