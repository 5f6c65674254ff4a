import type { SavedGroupsValues } from "@growthbook/growthbook";
import type { ProjectRef } from "../../platform/auth/principal.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import type { ServiceDeps } from "../../platform/deps.js";
import { validation } from "../../platform/errors.js";
import { cohortsOfPerson, existingCohortIds } from "../analytics/service.js";
import { COHORT_ATTRIBUTES, type CohortRef, type CohortUse } from "./conditions.js";

/**
 * Cohorts as flag targeting: a condition `{"id" | "leadId": {"$inGroup": "coh_…"}}`
 * is GrowthBook's saved-group test. The payload the SDKs download names the cohort but holds no
 * members; on the server (the evaluate endpoint and remote evaluation) each evaluation gets a saved
 * group per cohort holding just the caller's own `id` and/or `leadId` when that person is in it
 * (analytics' membership, at most a minute old), and GrowthBook's evaluator does the rest. The
 * groups never leave the server (remote evaluation's answer drops them), and membership for flags
 * counts only lead properties a server set unless the cohort trusts the browser's (analytics).
 */

export const MAX_COHORTS_PER_FLAG = 10;

/** 400 naming the field unless every cohort is the project's and a flag names at most 10. */
export async function checkCohorts(db: DbOrTrx, project: ProjectRef, refs: CohortRef[]): Promise<void> {
  const distinct = [...new Set(refs.map((r) => r.cohortId))];
  if (distinct.length > MAX_COHORTS_PER_FLAG) {
    const past = refs.find((r) => r.cohortId === distinct[MAX_COHORTS_PER_FLAG])!;
    throw validation(`${past.at}: a flag's rules name at most ${MAX_COHORTS_PER_FLAG} cohorts`);
  }
  const known = await existingCohortIds(db, project, distinct);
  const missing = refs.find((r) => !known.has(r.cohortId));
  if (missing) throw validation(`${missing.at}: no cohort ${missing.cohortId} in this project`);
}

/** Attribute values longer than this are nobody's id: not looked up. */
const MAX_ID_LENGTH = 200;

/**
 * This evaluation's saved groups: for each cohort, the caller's `id` when the visitor's person is
 * in it and the caller's `leadId` when that lead is (only for the attributes the cohort is tested
 * on). At most two membership reads per evaluation, whatever the caller sends.
 */
export async function savedGroupsFor(
  deps: Pick<ServiceDeps, "db" | "reads" | "state">,
  project: ProjectRef,
  uses: CohortUse,
  attributes: Record<string, unknown>,
): Promise<SavedGroupsValues> {
  const groups: SavedGroupsValues = {};
  for (const id of uses.keys()) groups[id] = [];
  for (const attribute of COHORT_ATTRIBUTES) {
    const value = attributes[attribute];
    if (typeof value !== "string" && typeof value !== "number") continue;
    const text = String(value);
    if (text === "" || text.length > MAX_ID_LENGTH) continue;
    const ids = [...uses].filter(([, on]) => on.has(attribute)).map(([id]) => id);
    if (ids.length === 0) continue;
    const person = attribute === "id" ? { visitorId: text } : { leadId: text };
    for (const id of await cohortsOfPerson(deps, project, ids, person)) groups[id]!.push(value);
  }
  return groups;
}
