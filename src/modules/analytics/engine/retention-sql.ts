import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { ReadDeps } from "../../../platform/deps.js";
import { type Condition, hasLevel } from "../filters/filter.js";
import { linksCte, personConditions } from "./people.js";
import { type Range, selection } from "./selection.js";
import { type EngineQuery, personKeySql } from "./sql.js";

/**
 * Retention in the engine's SQL (retention.ts has the rules): per cohort interval `c` and interval
 * offset `k`, the number `n` of the cohort's people active k intervals after it (k = 0: the
 * cohort's size). Intervals are numbered as `slot` says: a UTC day, or a Monday-based week.
 */
export interface RetentionSqlQuery {
  interval: "day" | "week";
  fromDay: number;
  toDay: number;
  startEvent: string;
  returnEvent: string | null;
}

const DAY_MS = 86_400_000;

/** The interval of a UTC day number (weeks as `weekOf` in sketches.ts; days are never negative). */
const slotSql = (interval: "day" | "week", day: string) => (interval === "day" ? day : `((${day} + 3) // 7)`);

export async function retentionSql(
  q: EngineQuery,
  deps: ReadDeps,
  project: ProjectRef,
  r: RetentionSqlQuery,
  conds: Condition[],
): Promise<string> {
  const range: Range = { from: r.fromDay * DAY_MS, to: (r.toDay + 1) * DAY_MS };
  // The filter keeps people (docs: "Filters and cohorts"): those with a selected visit or
  // conversion in the period, or, with person conditions alone, those who meet them.
  const selected = hasLevel(conds, "session") || hasLevel(conds, "event");
  const withs = selected
    ? `${await selection(q, deps, project, conds, range)},
      kept as (select person from visits where not server union select person from conv)`
    : `with ${linksCte(q, project)}`;
  const lead = "(case when person like 'l:%' then substr(person, 3) end)";
  const people = selected ? null : await personConditions(q, deps, project, conds, "person", lead);
  const start = q.v(r.startEvent);
  const fromDay = q.v(r.fromDay);
  const returns = r.returnEvent === null ? "" : ` and type = ${q.v(r.returnEvent)}`;
  const slot = (day: string) => slotSql(r.interval, day);
  // Every event that is someone's (bots and anonymous server events left out), server events
  // included: what a person did on which day, the first start event ever deciding the cohort.
  // `//` is integer division (DuckDB; ClickHouse: intDiv).
  return `${withs},
    act as (select person, ${slot("day")} as s,
        min(case when type = ${start} then day end) as first_start,
        max(case when day >= ${fromDay}${returns} then 1 else 0 end) as back
      from (select ${personKeySql("e.visitor_id")} as person, e.ts // ${DAY_MS} as day, e.type
        from events e left join links_p l on l.visitor_id = e.visitor_id
        where e.project_id = ${q.v(project.id)} and e.ts < ${q.v(range.to)} and not e.is_bot and e.visitor_id <> '') x
      group by person, s),
    cohort as (select person, ${slot("first_day")} as c from (select person, min(first_start) as first_day from act group by person) p
      where first_day >= ${fromDay} and first_day <= ${q.v(r.toDay)}${selected ? " and person in (select person from kept)" : ""}${people ? ` and ${people}` : ""})
    select c.c, a.s - c.c as k, count(*) as n
    from cohort c join act a on a.person = c.person
    where a.s = c.c or (a.s > c.c and a.back = 1)
    group by 1, 2`;
}
