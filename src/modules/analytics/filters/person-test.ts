import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { ReadDeps } from "../../../platform/deps.js";
import { leadIdsHolding } from "./lead-reader.js";
import { cohortMembers } from "../cohorts/cohorts.js";
import { type Condition, testValue } from "./filter.js";
import { personKey } from "../people.js";

/** Whether a known person (its key and lead) matches the person conditions. */
export type PersonTest = (personKey: string, leadId: string | null) => boolean;

/**
 * Resolves the person conditions once per request: each lead-property condition to the set of
 * leads that hold it (a visitor with no lead has no properties: `is_not`, `not_contains` and
 * `not_set` hold for it), each cohort to its members (computed on the analytics engine). Null
 * when the filter has no person condition.
 */
export async function personTest(
  deps: ReadDeps,
  project: ProjectRef,
  conds: Condition[],
): Promise<PersonTest | null> {
  const list = conds.filter((c) => c.level === "person");
  if (list.length === 0) return null;
  const { db } = deps;
  const checks: ((key: string, leadId: string | null) => boolean)[] = [];
  for (const c of list) {
    if (c.field === "cohort") {
      const members = new Set<string>();
      for (const id of c.values)
        for (const k of await cohortMembers(deps, project, id, `filter[${c.index}].value`, true))
          members.add(k);
      const want = c.op === "is";
      checks.push((key) => members.has(key) === want);
    } else {
      const leads = await leadIdsHolding(db, project, c);
      const anonymous = testValue(c, null);
      checks.push((_key, leadId) => (leadId === null ? anonymous : leads.has(leadId)));
    }
  }
  return (key, leadId) => checks.every((f) => f(key, leadId));
}

/** The person test of visitors, each by its person (the engine's links say whose lead it is). */
export async function visitorTest(
  deps: ReadDeps,
  project: ProjectRef,
  conds: Condition[],
): Promise<((visitorId: string) => boolean) | null> {
  const person = await personTest(deps, project, conds);
  if (!person) return null;
  const links = await engineLinks(deps, project);
  return (visitorId) => {
    const lead = links.get(visitorId) ?? null;
    return person(personKey(visitorId, lead), lead);
  };
}

/** The project's visitor → lead links, as the engine's copy holds them. */
async function engineLinks(deps: ReadDeps, project: ProjectRef): Promise<Map<string, string>> {
  const rows = await deps.engine.query<{ visitor_id: string; lead_id: string }>(
    "select visitor_id, lead_id from links where project_id = $1",
    [project.id],
  );
  return new Map(rows.map((r) => [r.visitor_id, r.lead_id]));
}
