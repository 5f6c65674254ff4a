import { creationTime } from "../../platform/creation-time.js";
import { sql } from "kysely";
import type { ProjectRef } from "../../platform/auth/principal.js";
import { boundedCache } from "../../platform/cache.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import { type ReadDeps, type ServiceDeps, stateOf, stateSlot } from "../../platform/deps.js";
import { defineReadTask } from "../../platform/read-pool/task.js";
import { isPostgresDb } from "../../platform/db/index.js";
import { notFound, validation } from "../../platform/errors.js";
import { newId } from "../../platform/crypto.js";
import { ISO_DATE_OR_TIME as ISO } from "../../platform/validation.js";
import { eventRowPages } from "../events/service.js";
import { LEAD_READER } from "./lead-reader.js";
import type {
  CohortDefinitionT,
  CohortT,
  CreateCohortBodyT,
  EventConditionT,
  PatchCohortBodyT,
} from "./cohort-schema.js";
import { type Condition, conditionAt, eventSql, parseFilter, testValue } from "./filter.js";
import { linksOfProject, personKey } from "./people.js";
import { DAY_MS, dayOf } from "./rollup-store.js";
import type { CohortTable } from "./tables.js";
import "./tables.js";

/**
 * Cohorts (issue 34): saved definitions of people. A person is a lead (all its visitors) or an
 * anonymous visitor, keyed as analytics keys people (`l:<lead>`, `v:<visitor>`). Every condition
 * must hold. Membership is computed when asked (`countCohort`, members, a report's `cohort`
 * condition) and kept a minute for `isInCohort` (flags).
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
function checkDefinition(def: CohortDefinitionT, where: string): void {
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
function windowOf(c: EventConditionT, at: string, now: number): { fromDay: number; toDay: number } {
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

async function findCohort(db: DbOrTrx, project: ProjectRef, id: string): Promise<CohortTable | undefined> {
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

// ---------------------------------------------------------------- membership

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
 * The members (person keys) of a saved cohort, computed now; `field` names the request field that
 * named it (a report filter's 400 when the cohort is not this project's).
 */
export async function cohortMembers(
  deps: ReadDeps,
  project: ProjectRef,
  id: string,
  field?: string,
  /** a membership computed in the last minute will do (a report filter; not the live count) */
  recent = false,
): Promise<Set<string>> {
  const row = await findCohort(deps.db, project, id);
  if (!row) {
    if (field) throw validation(`${field}: no cohort ${id} in this project`);
    throw notFound("cohort", id);
  }
  const key = `${project.id}\u0000${id}\u0000${row.updated_at}`;
  const cache = stateOf(deps, MEMBERSHIPS).recent;
  const cached = recent ? cache.get(key) : undefined;
  if (cached) return cached;
  const members = await evaluateCohort(deps, project, JSON.parse(row.definition) as CohortDefinitionT);
  cache.set(key, members);
  return members;
}

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
  const serverOnly = row.trust_browser_properties !== 1 && def.conditions.some((c) => c.type === "property");
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

export async function countCohort(deps: ReadDeps, project: ProjectRef, id: string) {
  const members = await cohortMembers(deps, project, id);
  return { count: members.size, computedAt: new Date().toISOString() };
}

export async function previewCohort(deps: ReadDeps, project: ProjectRef, def: CohortDefinitionT) {
  checkDefinition(def, "body.definition");
  const members = await evaluateCohort(deps, project, def);
  return { count: members.size, computedAt: new Date().toISOString() };
}

const encode = (key: string) => Buffer.from(key).toString("base64url");

export async function cohortMemberPage(
  deps: ReadDeps,
  project: ProjectRef,
  id: string,
  q: { limit?: number; cursor?: string },
) {
  const members = [...(await cohortMembers(deps, project, id))].sort();
  let start = 0;
  if (q.cursor) {
    const after = Buffer.from(q.cursor, "base64url").toString("utf8");
    if (!/^[lv]:/.test(after)) throw validation("query.cursor is not a cursor returned by this endpoint");
    let lo = 0;
    let hi = members.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (members[mid]! <= after) lo = mid + 1;
      else hi = mid;
    }
    start = lo;
  }
  const limit = q.limit ?? 100;
  const page = members.slice(start, start + limit);
  return {
    count: members.length,
    items: page.map((k) =>
      k.startsWith("l:") ? { leadId: k.slice(2), visitorId: null } : { leadId: null, visitorId: k.slice(2) },
    ),
    nextCursor: start + limit < members.length && page.length > 0 ? encode(page[page.length - 1]!) : null,
  };
}

/** A cohort's members now (person keys), on a reader thread, for flags' membership cache. */
export const evaluateCohortTask = defineReadTask(
  "analytics.cohort-evaluate",
  (ctx, project, q: { def: CohortDefinitionT; serverOnly: boolean }) =>
    evaluateCohort(ctx, project, q.def, Date.now(), { serverOnly: q.serverOnly }),
);

/** include: the people who satisfy it; exclude: everyone but these. */
type Part = { include: boolean; keys: Set<string> };

/** The people a definition holds now (person keys); `serverOnly`: browser-written properties count as missing. */
export async function evaluateCohort(
  deps: ReadDeps,
  project: ProjectRef,
  def: CohortDefinitionT,
  now = Date.now(),
  opts: { serverOnly?: boolean } = {},
): Promise<Set<string>> {
  const { db } = deps;
  const leads = stateOf(deps, LEAD_READER);
  const links = new Map<string, string>();
  for (const r of await linksOfProject(db, project.id)) links.set(r.visitor_id, r.lead_id);
  const keyOf = (visitorId: string) => personKey(visitorId, links.get(visitorId));
  const parts: Part[] = [];
  for (const [i, c] of def.conditions.entries()) {
    if (c.type === "event") {
      const did = await peopleWhoDid(db, project, c, windowOf(c, `definition.conditions[${i}]`, now), keyOf);
      parts.push({ include: c.did !== false, keys: did });
    } else {
      const cond = conditionAt(
        { key: `lead.${c.property}`, op: c.op, value: c.value },
        `definition.conditions[${i}]`,
      );
      if (!testValue(cond, null)) {
        parts.push({ include: true, keys: prefixed(await leads.idsWhere(db, project, cond, opts)) });
      } else {
        // Anonymous visitors hold it (is_not, not_set …): everyone but the leads that do not.
        const holding = await leads.idsWhere(db, project, cond, opts);
        const failing = new Set<string>();
        for (const id of await leads.idsWhere(db, project, null))
          if (!holding.has(id)) failing.add(`l:${id}`);
        parts.push({ include: false, keys: failing });
      }
    }
  }
  const includes = parts.filter((p) => p.include).sort((a, b) => a.keys.size - b.keys.size);
  let out: Set<string>;
  if (includes.length > 0) {
    out = new Set(includes[0]!.keys);
    for (const p of includes.slice(1)) for (const k of out) if (!p.keys.has(k)) out.delete(k);
  } else {
    out = await everyone(deps, project, keyOf);
  }
  for (const p of parts) if (!p.include) for (const k of p.keys) out.delete(k);
  return out;
}

const prefixed = (ids: Set<string>) => new Set([...ids].map((id) => `l:${id}`));

/** Every person of the project: each visitor seen in an event (bots left out), and every lead. */
async function everyone(
  deps: ReadDeps,
  project: ProjectRef,
  keyOf: (v: string) => string,
): Promise<Set<string>> {
  const { db } = deps;
  const out = prefixed(await stateOf(deps, LEAD_READER).idsWhere(db, project, null));
  const { rows } = await sql<{ visitor_id: string }>`select distinct visitor_id from analytics_activity
    where project_id = ${project.id}`.execute(db);
  for (const r of rows) out.add(keyOf(r.visitor_id));
  return out;
}

/**
 * People with at least `atLeast` events of the type (and its conditions) in the window. Once with
 * no conditions reads `analytics_activity` (who did what on which day), else the window's events.
 */
async function peopleWhoDid(
  db: DbOrTrx,
  project: ProjectRef,
  c: EventConditionT,
  window: { fromDay: number; toDay: number },
  keyOf: (v: string) => string,
): Promise<Set<string>> {
  const atLeast = c.atLeast ?? 1;
  const where = parseFilter(c.where ?? [], "where");
  const out = new Set<string>();
  if (atLeast === 1 && where.length === 0) {
    const { rows } = await sql<{ visitor_id: string }>`select distinct visitor_id from analytics_activity
      where project_id = ${project.id} and day >= ${window.fromDay} and day <= ${window.toDay} and type = ${c.event}`.execute(
      db,
    );
    for (const r of rows) out.add(keyOf(r.visitor_id));
    return out;
  }
  const counts = new Map<string, number>();
  const extra = eventSql(where as Condition[], isPostgresDb(db));
  const filter = sql<boolean>`type = ${c.event} and visitor_id <> ''${extra ? sql` and ${extra}` : sql``}`;
  const range = { from: window.fromDay * DAY_MS, to: (window.toDay + 1) * DAY_MS };
  for await (const page of eventRowPages<{ visitor_id: string }>(
    db,
    project,
    range,
    sql`visitor_id`,
    filter,
  )) {
    for (const e of page) {
      const key = keyOf(e.visitor_id);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  for (const [k, n] of counts) if (n >= atLeast) out.add(k);
  return out;
}
