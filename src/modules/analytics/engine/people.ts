import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { ReadDeps } from "../../../platform/deps.js";
import { cohortPeopleSql } from "../cohorts/cohorts.js";
import { SESSION_DIMENSIONS } from "../ingest/dimensions.js";
import { type Condition, testValue } from "../filters/filter.js";
import { leadIdsHolding } from "../filters/lead-reader.js";
import type { EngineQuery } from "./sql.js";

/**
 * People in the engine's SQL: a person is a lead (all its visitors) or an anonymous visitor, keyed
 * `l:<lead>` / `v:<visitor>` as everywhere in analytics; the copy's `links` say which visitors are
 * a lead's. These build the common table expressions the reports share.
 */

/** `links_p(visitor_id, lead_id)`: the project's links. */
export const linksCte = (q: EngineQuery, project: ProjectRef) =>
  `links_p as (select visitor_id, lead_id from links where project_id = ${q.v(project.id)})`;

/**
 * `first_touch(person, channel, <dimensions>, session_id)`: each person's first touch, the
 * earliest web session of any of its visitors ever (ties: the lower session id), for the people of
 * `persons` (a query giving a `person` column) — needs `links_p`. Only those people's visitors'
 * sessions are read: a `v:` person's own, and every visitor linked to an `l:` person's lead. With
 * no such people no session is read: DuckDB builds its hash on the sessions otherwise, even for an
 * empty other side.
 */
export const firstTouchCte = (q: EngineQuery, project: ProjectRef, persons: string) =>
  `ft_people as (select distinct person from (${persons})),
  ft_visitors as (select substr(person, 3) as visitor_id, person from ft_people where person like 'v:%'
    union all select l.visitor_id, 'l:' || l.lead_id as person from links_p l
    where 'l:' || l.lead_id in (select person from ft_people)),
  first_touch as (select fv.person,
    ${["channel", ...SESSION_DIMENSIONS, "session_id"].map((d) => `arg_min(s.${d}, (s.ts, s.session_id)) as ${d}`).join(", ")}
    from sessions s join ft_visitors fv on fv.visitor_id = s.visitor_id
    where s.project_id = ${q.v(project.id)} and (select count(*) from ft_visitors) > 0 group by fv.person)`;

/**
 * The person conditions (lead properties, cohorts) as a condition on a person key and its lead id
 * (SQL expressions); null when the filter has none. A lead property resolves to the leads that
 * hold it (identity's store, bound as a list); a visitor with no lead has no properties, so
 * `is_not`, `not_contains` and `not_set` hold for it. A cohort resolves to its members.
 */
export async function personConditions(
  q: EngineQuery,
  deps: ReadDeps,
  project: ProjectRef,
  conds: Condition[],
  person: string,
  lead: string,
): Promise<string | null> {
  const list = conds.filter((c) => c.level === "person");
  if (list.length === 0) return null;
  const parts: string[] = [];
  for (const c of list) {
    if (c.field === "cohort") {
      const within = `${person} in ${await cohortPeopleSql(q, deps, project, c.values, `filter[${c.index}].value`)}`;
      parts.push(c.op === "is" ? within : `not (${within})`);
    } else {
      const leads = await leadIdsHolding(deps.db, project, c);
      const anonymous = testValue(c, null);
      parts.push(`(case when ${lead} is null then ${anonymous} else ${lead} in ${q.list(leads)} end)`);
    }
  }
  return parts.join(" and ");
}
