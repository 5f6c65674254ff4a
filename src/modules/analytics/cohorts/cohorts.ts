import type { ProjectRef } from "../../../platform/auth/principal.js";
import { boundedCache } from "../../../platform/cache.js";
import { type ReadDeps, type ServiceDeps, stateOf, stateSlot } from "../../../platform/deps.js";
import { notFound, validation } from "../../../platform/errors.js";
import { defineReadTask } from "../../../platform/read-pool/task.js";
import { checkDefinition, findCohort, windowOf } from "./records.js";
import type { CohortDefinitionT } from "./schema.js";
import { cohortSql, memberCountSql, memberPageSql } from "../engine/cohort-sql.js";
import { EngineQuery } from "../engine/sql.js";
import { personKey } from "../people.js";
import type { CohortTable } from "../tables.js";

export {
  createCohort,
  deleteCohort,
  existingCohortIds,
  getCohort,
  listCohorts,
  updateCohort,
} from "./records.js";

/**
 * Cohorts: saved definitions of people. A person is a lead (all its visitors) or an
 * anonymous visitor, keyed as analytics keys people (`l:<lead>`, `v:<visitor>`). Every condition
 * must hold. Membership is one query on the analytics engine (engine/cohort-sql.ts), run when
 * asked: counts and member pages count and page in the engine, a report's `cohort` condition is
 * part of the report's own query, and flags (`isInCohort`) keep a member set a minute.
 */

/** The definition's membership query on `q`; `now` places windows given in days. */
export function definitionSql(
  q: EngineQuery,
  deps: ReadDeps,
  project: ProjectRef,
  def: CohortDefinitionT,
  now: number,
  serverOnly = false,
): Promise<string> {
  const windows = def.conditions.map((c, i) =>
    c.type === "event" ? windowOf(c, `definition.conditions[${i}]`, now) : null,
  );
  return cohortSql(q, deps, project, def, { windows, serverOnly });
}

/** The saved cohort, or 400 naming `field` (a report filter) / 404 when it is not this project's. */
export async function cohortRow(
  deps: ReadDeps,
  project: ProjectRef,
  id: string,
  field?: string,
): Promise<CohortTable> {
  const row = await findCohort(deps.db, project, id);
  if (row) return row;
  if (field) throw validation(`${field}: no cohort ${id} in this project`);
  throw notFound("cohort", id);
}

/**
 * The people (person keys) in any of the saved cohorts, as a subquery on `q`: `(select person …)`
 * for a report's `cohort` condition (`x in <this>`). `field` names the request field for the 400
 * when a cohort is not this project's.
 */
export async function cohortPeopleSql(
  q: EngineQuery,
  deps: ReadDeps,
  project: ProjectRef,
  ids: string[],
  field: string,
): Promise<string> {
  const parts: string[] = [];
  const now = Date.now();
  for (const id of ids) {
    const row = await cohortRow(deps, project, id, field);
    parts.push(`(${await definitionSql(q, deps, project, JSON.parse(row.definition), now)})`);
  }
  return `(select person from (${parts.join(" union ")}) cp)`;
}

/** The people a definition holds now (person keys); `serverOnly`: browser-written properties count as missing. */
export async function evaluateCohort(
  deps: ReadDeps,
  project: ProjectRef,
  def: CohortDefinitionT,
  now = Date.now(),
  opts: { serverOnly?: boolean } = {},
): Promise<Set<string>> {
  const q = new EngineQuery();
  const members = await definitionSql(q, deps, project, def, now, opts.serverOnly);
  const rows = await deps.engine.query<{ person: string }>(...q.bound(members));
  return new Set(rows.map((r) => r.person));
}

// ---------------------------------------------------------------- member sets for flags

const MEMBERSHIP_TTL_MS = 60_000;

/**
 * Per app (and per read worker): cohort (and definition version) → members, kept a minute; and
 * the memberships being computed, so callers at once share one computation (flags' evaluations).
 */
const MEMBERSHIPS = stateSlot("analytics.cohort-memberships", () => ({
  recent: boundedCache<string, Set<string>>(100, MEMBERSHIP_TTL_MS),
  computing: new Map<string, Promise<Set<string>>>(),
}));

/**
 * The members (person keys) of a saved cohort as a set, computed now on the engine; `field` names
 * the request field that named it (a 400 when the cohort is not this project's). `recent`: a
 * membership computed in the last minute will do.
 */
export async function cohortMembers(
  deps: ReadDeps,
  project: ProjectRef,
  id: string,
  field?: string,
  recent = false,
): Promise<Set<string>> {
  const row = await cohortRow(deps, project, id, field);
  const key = `${project.id}\u0000${id}\u0000${row.updated_at}`;
  const cache = stateOf(deps, MEMBERSHIPS).recent;
  const cached = recent ? cache.get(key) : undefined;
  if (cached) return cached;
  const members = await evaluateCohort(deps, project, JSON.parse(row.definition) as CohortDefinitionT);
  cache.set(key, members);
  return members;
}

/** Whether flag targeting reads only server-set lead properties for this cohort (see below). */
export const targetingIsServerOnly = (row: CohortTable, def: CohortDefinitionT): boolean =>
  row.trust_browser_properties !== 1 && def.conditions.some((c) => c.type === "property");

/**
 * The cohort's members as flag targeting sees them, computed at most once a minute per definition
 * version, one computation at a time. Unless the cohort trusts browser properties, its property
 * conditions read only what a server set (a public key is anyone's); without property conditions
 * that is the reports' membership, and shares its cache entry.
 */
async function recentMembers(
  deps: Pick<ServiceDeps, "reads" | "state">,
  project: ProjectRef,
  row: CohortTable,
): Promise<Set<string>> {
  const def = JSON.parse(row.definition) as CohortDefinitionT;
  const serverOnly = targetingIsServerOnly(row, def);
  const key = `${project.id}\u0000${row.id}\u0000${row.updated_at}${serverOnly ? "\u0000server" : ""}`;
  const { recent, computing } = stateOf(deps, MEMBERSHIPS);
  const cached = recent.get(key);
  if (cached) return cached;
  let pending = computing.get(key);
  if (!pending) {
    // On a reader thread: a membership grows with the project's events, and a flag evaluation
    // (anyone's, with the public key) must not hold the request thread while it is computed.
    pending = deps.reads
      .run(evaluateCohortTask, project, { def, serverOnly })
      .finally(() => computing.delete(key));
    computing.set(key, pending);
    recent.set(key, await pending);
  }
  return pending;
}

/**
 * Whether a person is in a saved cohort — for a flag's targeting: the visitor id (its lead looked
 * up) or the lead id. Membership is computed at most once a minute per cohort and definition; an
 * unknown cohort holds no one.
 */
export async function isInCohort(
  deps: Pick<ServiceDeps, "db" | "reads" | "state">,
  project: ProjectRef,
  cohortId: string,
  person: { visitorId?: string; leadId?: string },
): Promise<boolean> {
  return (await cohortsOfPerson(deps, project, [cohortId], person)).has(cohortId);
}

/**
 * Which of the cohorts hold the person (a visitor id, its lead looked up, or a lead id): one read
 * of the cohorts, at most one of the visitor's link, and memberships at most a minute old.
 * Unknown cohorts and other projects' hold no one.
 */
export async function cohortsOfPerson(
  deps: Pick<ServiceDeps, "db" | "reads" | "state">,
  project: ProjectRef,
  cohortIds: string[],
  person: { visitorId?: string; leadId?: string },
): Promise<Set<string>> {
  const { db } = deps;
  const out = new Set<string>();
  if (cohortIds.length === 0 || (!person.leadId && !person.visitorId)) return out;
  const rows = await db
    .selectFrom("analytics_cohorts")
    .selectAll()
    .where("project_id", "=", project.id)
    .where("id", "in", cohortIds)
    .execute();
  if (rows.length === 0) return out;
  let key: string;
  if (person.leadId) key = `l:${person.leadId}`;
  else {
    const link = await db
      .selectFrom("analytics_links")
      .select("lead_id")
      .where("project_id", "=", project.id)
      .where("visitor_id", "=", person.visitorId!)
      .executeTakeFirst();
    key = personKey(person.visitorId!, link?.lead_id);
  }
  for (const row of rows) if ((await recentMembers(deps, project, row)).has(key)) out.add(row.id);
  return out;
}

/** A cohort's members now (person keys), on a reader thread, for flags' membership cache. */
export const evaluateCohortTask = defineReadTask(
  "analytics.cohort-evaluate",
  (ctx, project, q: { def: CohortDefinitionT; serverOnly: boolean }) =>
    evaluateCohort(ctx, project, q.def, Date.now(), { serverOnly: q.serverOnly }),
);

// ---------------------------------------------------------------- counts and pages (engine)

async function countOf(deps: ReadDeps, project: ProjectRef, def: CohortDefinitionT) {
  const q = new EngineQuery();
  const members = await definitionSql(q, deps, project, def, Date.now());
  const [row] = await deps.engine.query<{ n: number | bigint }>(...q.bound(memberCountSql(members)));
  return { count: Number(row?.n ?? 0), computedAt: new Date().toISOString() };
}

export async function countCohort(deps: ReadDeps, project: ProjectRef, id: string) {
  const row = await cohortRow(deps, project, id);
  return countOf(deps, project, JSON.parse(row.definition) as CohortDefinitionT);
}

export async function previewCohort(deps: ReadDeps, project: ProjectRef, def: CohortDefinitionT) {
  checkDefinition(def, "body.definition");
  return countOf(deps, project, def);
}

const encode = (key: string) => Buffer.from(key).toString("base64url");

/** A page of a cohort's members in key order (the engine counts and pages), with the total. */
export async function cohortMemberPage(
  deps: ReadDeps,
  project: ProjectRef,
  id: string,
  page: { limit?: number; cursor?: string },
) {
  const row = await cohortRow(deps, project, id);
  let after: string | null = null;
  if (page.cursor) {
    after = Buffer.from(page.cursor, "base64url").toString("utf8");
    if (!/^[lv]:/.test(after)) throw validation("query.cursor is not a cursor returned by this endpoint");
  }
  const limit = page.limit ?? 100;
  const q = new EngineQuery();
  const members = await definitionSql(q, deps, project, JSON.parse(row.definition), Date.now());
  // One more than the page: whether another follows.
  const rows = await deps.engine.query<{ total: number | bigint; person: string | null }>(
    ...q.bound(memberPageSql(q, members, after, limit + 1)),
  );
  const keys = rows.flatMap((r) => (r.person === null ? [] : [r.person]));
  const items = keys.slice(0, limit);
  return {
    count: Number(rows[0]?.total ?? 0),
    items: items.map((k) =>
      k.startsWith("l:") ? { leadId: k.slice(2), visitorId: null } : { leadId: null, visitorId: k.slice(2) },
    ),
    nextCursor: keys.length > limit ? encode(items[items.length - 1]!) : null,
  };
}
