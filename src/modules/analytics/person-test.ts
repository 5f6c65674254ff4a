import type { ProjectRef } from "../../platform/auth/principal.js";
import { type ReadDeps, stateOf } from "../../platform/deps.js";
import { LEAD_READER } from "./lead-reader.js";
import { cohortMembers } from "./cohorts.js";
import { type Condition, testValue } from "./filter.js";
import { linksOfProject, personKey } from "./people.js";

/** Whether a person matches the person conditions: by a visitor (its lead looked up) or a known person. */
export interface PersonTest {
  visitor(visitorId: string): boolean;
  person(personKey: string, leadId: string | null): boolean;
  /** the lead of a visitor (analytics' own links) */
  leadOf(visitorId: string): string | undefined;
}

/**
 * Resolves the person conditions once per request: each lead-property condition to the set of
 * leads that hold it (a visitor with no lead has no properties: `is_not`, `not_contains` and
 * `not_set` hold for it), each cohort to its members, and the project's visitor → lead links.
 * Null when the filter has no person condition.
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
      const leads = await stateOf(deps, LEAD_READER).idsWhere(db, project, c);
      const anonymous = testValue(c, null);
      checks.push((_key, leadId) => (leadId === null ? anonymous : leads.has(leadId)));
    }
  }
  const links = new Map<string, string>();
  for (const r of await linksOfProject(db, project.id)) links.set(r.visitor_id, r.lead_id);
  const person = (key: string, leadId: string | null) => checks.every((f) => f(key, leadId));
  return {
    person,
    visitor: (visitorId) => {
      const lead = links.get(visitorId) ?? null;
      return person(personKey(visitorId, lead), lead);
    },
    leadOf: (visitorId) => links.get(visitorId),
  };
}
