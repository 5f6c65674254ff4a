import type { ProjectRef } from "../../../platform/auth/principal.js";
import { creationTime } from "../../../platform/creation-time.js";
import { newId } from "../../../platform/crypto.js";
import type { DbOrTrx } from "../../../platform/db/index.js";
import { notFound, validation } from "../../../platform/errors.js";
import { ISO_DATE_OR_TIME as ISO } from "../../../platform/validation.js";
import type {
  CohortDefinitionT,
  CohortT,
  CreateCohortBodyT,
  EventConditionT,
  PatchCohortBodyT,
} from "./schema.js";
import { conditionAt, parseFilter } from "../filters/filter.js";
import { dayOf } from "../ingest/rollup-store.js";
import type { CohortTable } from "../tables.js";
import "../tables.js";

/**
 * Cohorts' records: saved definitions of people, checked when saved. Membership is
 * cohorts.ts's.
 */

const toCohort = (r: CohortTable): CohortT => ({
  id: r.id,
  name: r.name,
  description: r.description,
  definition: JSON.parse(r.definition) as CohortDefinitionT,
  trustBrowserProperties: r.trust_browser_properties === 1,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Checks what the schema cannot: conditions' own filters and date windows. */
export function checkDefinition(def: CohortDefinitionT, where: string): void {
  def.conditions.forEach((c, i) => {
    const at = `${where}.conditions[${i}]`;
    if (c.type === "event") {
      const conds = parseFilter(c.where ?? [], `${at}.where`);
      const bad = conds.find((x) => x.level !== "event" || x.field === "type");
      if (bad) throw validation(`${at}.where[${bad.index}].key must be page, country or event.<property>`);
      windowOf(c, at, Date.now());
    } else {
      conditionAt({ key: `lead.${c.property}`, op: c.op, value: c.value }, at);
    }
  });
}

/** The condition's window as whole UTC days [fromDay, toDay]. */
export function windowOf(c: EventConditionT, at: string, now: number): { fromDay: number; toDay: number } {
  if (c.from !== undefined || c.to !== undefined) {
    if (c.withinDays !== undefined) throw validation(`${at}.withinDays cannot be given with from/to`);
    if (c.from === undefined || c.to === undefined) throw validation(`${at}.from and to go together`);
    const day = (v: string, f: string) => {
      const ms = ISO.test(v) ? Date.parse(v.length === 10 ? `${v}T00:00:00Z` : v) : Number.NaN;
      if (!Number.isFinite(ms)) throw validation(`${at}.${f} must be an ISO 8601 date`);
      return dayOf(ms);
    };
    const fromDay = day(c.from, "from");
    const toDay = day(c.to, "to");
    if (fromDay > toDay) throw validation(`${at}.from must not be after to`);
    if (toDay - fromDay >= 3660) throw validation(`${at}.from: a window spans at most 3660 days`);
    return { fromDay, toDay };
  }
  const toDay = dayOf(now);
  return { fromDay: toDay - (c.withinDays ?? 30) + 1, toDay };
}

export async function createCohort(
  db: DbOrTrx,
  project: ProjectRef,
  body: CreateCohortBodyT,
): Promise<CohortT> {
  checkDefinition(body.definition, "body.definition");
  const now = creationTime();
  const row: CohortTable = {
    id: newId("coh"),
    project_id: project.id,
    name: body.name,
    description: body.description ?? null,
    definition: JSON.stringify(body.definition),
    trust_browser_properties: body.trustBrowserProperties ? 1 : 0,
    created_at: now,
    updated_at: now,
  };
  await db.insertInto("analytics_cohorts").values(row).execute();
  return toCohort(row);
}

export async function listCohorts(db: DbOrTrx, project: ProjectRef): Promise<CohortT[]> {
  const rows = await db
    .selectFrom("analytics_cohorts")
    .selectAll()
    .where("project_id", "=", project.id)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .limit(1000)
    .execute();
  return rows.map(toCohort);
}

export async function findCohort(
  db: DbOrTrx,
  project: ProjectRef,
  id: string,
): Promise<CohortTable | undefined> {
  return db
    .selectFrom("analytics_cohorts")
    .selectAll()
    .where("project_id", "=", project.id)
    .where("id", "=", id)
    .executeTakeFirst();
}

export async function getCohort(db: DbOrTrx, project: ProjectRef, id: string): Promise<CohortT> {
  const row = await findCohort(db, project, id);
  if (!row) throw notFound("cohort", id);
  return toCohort(row);
}

export async function updateCohort(
  db: DbOrTrx,
  project: ProjectRef,
  id: string,
  patch: PatchCohortBodyT,
): Promise<CohortT> {
  const row = await findCohort(db, project, id);
  if (!row) throw notFound("cohort", id);
  if (patch.definition) checkDefinition(patch.definition, "body.definition");
  // A later updated_at than the row's, so a cached membership of the old definition is not used.
  const stamp = new Date(Math.max(Date.now(), Date.parse(row.updated_at) + 1)).toISOString();
  const next: CohortTable = {
    ...row,
    name: patch.name ?? row.name,
    description: patch.description ?? row.description,
    definition: patch.definition ? JSON.stringify(patch.definition) : row.definition,
    trust_browser_properties:
      patch.trustBrowserProperties === undefined
        ? row.trust_browser_properties
        : Number(patch.trustBrowserProperties),
    updated_at: stamp,
  };
  await db
    .updateTable("analytics_cohorts")
    .set({
      name: next.name,
      description: next.description,
      definition: next.definition,
      trust_browser_properties: next.trust_browser_properties,
      updated_at: stamp,
    })
    .where("project_id", "=", project.id)
    .where("id", "=", id)
    .execute();
  return toCohort(next);
}

export async function deleteCohort(
  db: DbOrTrx,
  project: ProjectRef,
  id: string,
): Promise<{ id: string; deleted: true }> {
  const res = await db
    .deleteFrom("analytics_cohorts")
    .where("project_id", "=", project.id)
    .where("id", "=", id)
    .executeTakeFirst();
  if (Number(res.numDeletedRows) === 0) throw notFound("cohort", id);
  return { id, deleted: true };
}

/** The ids among `ids` that are cohorts of the project (a flag rule naming one is checked when saved). */
export async function existingCohortIds(
  db: DbOrTrx,
  project: ProjectRef,
  ids: string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom("analytics_cohorts")
    .select("id")
    .where("project_id", "=", project.id)
    .where("id", "in", ids)
    .execute();
  return new Set(rows.map((r) => r.id));
}
