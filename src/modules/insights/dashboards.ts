import { creationTime } from "../../platform/creation-time.js";
import type { ProjectRef } from "../../platform/auth/principal.js";
import { newId } from "../../platform/crypto.js";
import { type DbOrTrx, withTransaction } from "../../platform/db/index.js";
import { notFound, validation } from "../../platform/errors.js";
import { newestFirstFrom, pageOf } from "../../platform/cursor.js";
import { insightsByIds, stampAfter } from "./insights.js";
import { deleteSubscriptionsOf } from "./subscriptions-store.js";
import {
  type CreateDashboardBodyT,
  type DashboardItemT,
  type DashboardT,
  GRID_COLUMNS,
  type PatchDashboardBodyT,
} from "./schema.js";
import type { DashboardTable } from "./tables.js";
import "./tables.js";

/** Dashboards: a grid of the project's saved insights. */

export const toDashboard = (r: DashboardTable): DashboardT => ({
  id: r.id,
  name: r.name,
  description: r.description,
  items: JSON.parse(r.items) as DashboardItemT[],
  shared: r.share_hash && r.shared_at ? { since: r.shared_at } : null,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Tiles in reading order: top to bottom, then left to right (how a phone stacks them). */
export const gridOrder = <T extends { x: number; y: number }>(items: T[]) =>
  [...items].sort((a, b) => a.y - b.y || a.x - b.x);

/**
 * 400 naming the field unless every tile is an insight of this project, inside the 12 columns,
 * and no two tiles overlap (an insight may appear twice).
 */
async function checkItems(db: DbOrTrx, project: ProjectRef, items: DashboardItemT[], where: string) {
  const known = await insightsByIds(db, project.id, [...new Set(items.map((i) => i.insightId))]);
  const taken = new Map<string, number>();
  items.forEach((item, i) => {
    const at = `${where}[${i}]`;
    if (!known.has(item.insightId))
      throw validation(`${at}.insightId: no insight ${item.insightId} in this project`);
    if (item.x + item.w > GRID_COLUMNS)
      throw validation(
        `${at}.w: the tile ends past column ${GRID_COLUMNS} (x + w must be at most ${GRID_COLUMNS})`,
      );
    for (let y = item.y; y < item.y + item.h; y++)
      for (let x = item.x; x < item.x + item.w; x++) {
        const other = taken.get(`${x},${y}`);
        if (other !== undefined) throw validation(`${at} overlaps ${where}[${other}]`);
        taken.set(`${x},${y}`, i);
      }
  });
}

export async function createDashboard(
  db: DbOrTrx,
  project: ProjectRef,
  body: CreateDashboardBodyT,
): Promise<DashboardT> {
  const items = body.items ?? [];
  await checkItems(db, project, items, "body.items");
  const now = creationTime();
  const row: DashboardTable = {
    id: newId("dsh"),
    project_id: project.id,
    workspace_id: project.workspaceId,
    name: body.name,
    description: body.description ?? null,
    items: JSON.stringify(items),
    share_hash: null,
    shared_at: null,
    created_at: now,
    updated_at: now,
  };
  await db.insertInto("dashboards").values(row).execute();
  return toDashboard(row);
}

export async function listDashboards(
  db: DbOrTrx,
  project: ProjectRef,
  q: { limit?: number; cursor?: string },
) {
  const limit = q.limit ?? 50;
  const query = db.selectFrom("dashboards").selectAll().where("project_id", "=", project.id);
  const { page, nextCursor } = pageOf(await newestFirstFrom(query, q.cursor, limit).execute(), limit);
  return { items: page.map(toDashboard), nextCursor };
}

export async function findDashboardRow(db: DbOrTrx, project: ProjectRef, id: string) {
  const row = await db
    .selectFrom("dashboards")
    .selectAll()
    .where("project_id", "=", project.id)
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row) throw notFound("dashboard", id);
  return row;
}

export const getDashboard = async (db: DbOrTrx, project: ProjectRef, id: string) =>
  toDashboard(await findDashboardRow(db, project, id));

export async function updateDashboard(
  db: DbOrTrx,
  project: ProjectRef,
  id: string,
  patch: PatchDashboardBodyT,
): Promise<DashboardT> {
  const row = await findDashboardRow(db, project, id);
  if (patch.items) await checkItems(db, project, patch.items, "body.items");
  const next: DashboardTable = {
    ...row,
    name: patch.name ?? row.name,
    description: patch.description !== undefined ? patch.description : row.description,
    items: patch.items ? JSON.stringify(patch.items) : row.items,
    updated_at: stampAfter(row.updated_at),
  };
  await db
    .updateTable("dashboards")
    .set({ name: next.name, description: next.description, items: next.items, updated_at: next.updated_at })
    .where("id", "=", id)
    .where("project_id", "=", project.id)
    .execute();
  return toDashboard(next);
}

export async function deleteDashboard(db: DbOrTrx, project: ProjectRef, id: string) {
  return withTransaction(db, async (trx) => {
    const res = await trx
      .deleteFrom("dashboards")
      .where("id", "=", id)
      .where("project_id", "=", project.id)
      .executeTakeFirst();
    if (Number(res.numDeletedRows) === 0) throw notFound("dashboard", id);
    await deleteSubscriptionsOf(trx, project.id, { dashboardId: id });
    return { id, deleted: true as const };
  });
}
