import { creationTime } from "../../platform/creation-time.js";
import { newestFirstFrom, pageOf } from "../../platform/cursor.js";
import type { ProjectRef } from "../../platform/auth/principal.js";
import { newId } from "../../platform/crypto.js";
import { type DbOrTrx, withTransaction } from "../../platform/db/index.js";
import { notFound } from "../../platform/errors.js";
import { checkSettings } from "./run.js";
import type {
  CreateInsightBodyT,
  DashboardItemT,
  InsightKind,
  InsightT,
  PatchInsightBodyT,
} from "./schema.js";
import type { InsightTable } from "./tables.js";
import "./tables.js";
import { deleteSubscriptionsOf } from "./subscriptions-store.js";

/** Saved insights: a report's kind and settings under a name, per project. */

export const toInsight = (r: InsightTable): InsightT => ({
  id: r.id,
  name: r.name,
  description: r.description,
  kind: r.kind as InsightKind,
  settings: JSON.parse(r.settings) as Record<string, unknown>,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** A later time than `before` (ISO), so an update always moves `updatedAt` (caches key on it). */
export const stampAfter = (before: string) =>
  new Date(Math.max(Date.now(), Date.parse(before) + 1)).toISOString();

export async function createInsight(
  db: DbOrTrx,
  project: ProjectRef,
  body: CreateInsightBodyT,
): Promise<InsightT> {
  checkSettings(body.kind, body.settings, "body.settings");
  const now = creationTime();
  const row: InsightTable = {
    id: newId("ins"),
    project_id: project.id,
    name: body.name,
    description: body.description ?? null,
    kind: body.kind,
    settings: JSON.stringify(body.settings),
    created_at: now,
    updated_at: now,
  };
  await db.insertInto("insights").values(row).execute();
  return toInsight(row);
}

export async function listInsights(
  db: DbOrTrx,
  project: ProjectRef,
  q: { kind?: InsightKind; limit?: number; cursor?: string },
) {
  const limit = q.limit ?? 50;
  let query = db.selectFrom("insights").selectAll().where("project_id", "=", project.id);
  if (q.kind) query = query.where("kind", "=", q.kind);
  const { page, nextCursor } = pageOf(await newestFirstFrom(query, q.cursor, limit).execute(), limit);
  return { items: page.map(toInsight), nextCursor };
}

export async function findInsightRow(db: DbOrTrx, project: ProjectRef, id: string) {
  const row = await db
    .selectFrom("insights")
    .selectAll()
    .where("project_id", "=", project.id)
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row) throw notFound("insight", id);
  return row;
}

export const getInsight = async (db: DbOrTrx, project: ProjectRef, id: string) =>
  toInsight(await findInsightRow(db, project, id));

export async function updateInsight(
  db: DbOrTrx,
  project: ProjectRef,
  id: string,
  patch: PatchInsightBodyT,
): Promise<InsightT> {
  const row = await findInsightRow(db, project, id);
  if (patch.settings !== undefined) checkSettings(row.kind as InsightKind, patch.settings, "body.settings");
  const next: InsightTable = {
    ...row,
    name: patch.name ?? row.name,
    description: patch.description !== undefined ? patch.description : row.description,
    settings: patch.settings !== undefined ? JSON.stringify(patch.settings) : row.settings,
    updated_at: stampAfter(row.updated_at),
  };
  await db
    .updateTable("insights")
    .set({
      name: next.name,
      description: next.description,
      settings: next.settings,
      updated_at: next.updated_at,
    })
    .where("id", "=", id)
    .where("project_id", "=", project.id)
    .execute();
  return toInsight(next);
}

/** Deletes the insight and takes its tiles off the project's dashboards, in one transaction. */
export async function deleteInsight(db: DbOrTrx, project: ProjectRef, id: string) {
  return withTransaction(db, async (trx) => {
    await findInsightRow(trx, project, id);
    await trx.deleteFrom("insights").where("id", "=", id).where("project_id", "=", project.id).execute();
    await deleteSubscriptionsOf(trx, project.id, { insightId: id });
    const boards = await trx
      .selectFrom("dashboards")
      .select(["id", "items", "updated_at"])
      .where("project_id", "=", project.id)
      .execute();
    for (const b of boards) {
      const items = JSON.parse(b.items) as DashboardItemT[];
      const kept = items.filter((i) => i.insightId !== id);
      if (kept.length === items.length) continue;
      await trx
        .updateTable("dashboards")
        .set({ items: JSON.stringify(kept), updated_at: stampAfter(b.updated_at) })
        .where("id", "=", b.id)
        .execute();
    }
    return { id, deleted: true as const };
  });
}

/** The project's insights among `ids` (others' and unknown ids are simply absent). */
export async function insightsByIds(
  db: DbOrTrx,
  projectId: string,
  ids: string[],
): Promise<Map<string, InsightTable>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom("insights")
    .selectAll()
    .where("project_id", "=", projectId)
    .where("id", "in", ids)
    .execute();
  return new Map(rows.map((r) => [r.id, r]));
}
