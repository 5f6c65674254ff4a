import { newestFirstFrom, pageOf } from "../../platform/cursor.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import { notFound } from "../../platform/errors.js";
import type { AlertConditionT, AlertFiringT, AlertNotifyT, AlertQueryT, AlertT } from "./schema.js";
import type { AlertFiringTable, AlertTable } from "./tables.js";
import "./tables.js";

/** The alerts module's SQL: alerts, their check state, and firings. */

export const toAlert = (r: AlertTable): AlertT => ({
  id: r.id,
  name: r.name,
  query: JSON.parse(r.query) as AlertQueryT,
  condition: JSON.parse(r.condition) as AlertConditionT,
  notify: JSON.parse(r.notify) as AlertNotifyT,
  enabled: r.enabled === 1,
  state: {
    lastBucket: r.last_bucket,
    crossed: r.last_crossed === null ? null : r.last_crossed === 1,
    lastValue: r.last_value === null ? null : Number(r.last_value),
    checkedAt: r.last_checked_at,
  },
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

const num = (v: number | null) => (v === null ? null : Number(v));

export const toFiring = (r: AlertFiringTable): AlertFiringT => ({
  id: r.id,
  alertId: r.alert_id,
  bucket: r.bucket,
  value: num(r.value),
  previousValue: num(r.previous_value),
  condition: JSON.parse(r.condition) as AlertConditionT,
  email: r.email_status ? (JSON.parse(r.email_status) as AlertFiringT["email"]) : [],
  firedAt: r.created_at,
});

export async function findAlertRow(db: DbOrTrx, projectId: string, id: string): Promise<AlertTable> {
  const row = await db
    .selectFrom("alerts")
    .selectAll()
    .where("project_id", "=", projectId)
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row) throw notFound("alert", id);
  return row;
}

export async function alertPage(db: DbOrTrx, projectId: string, q: { limit?: number; cursor?: string }) {
  const limit = q.limit ?? 50;
  const query = db.selectFrom("alerts").selectAll().where("project_id", "=", projectId);
  const { page, nextCursor } = pageOf(await newestFirstFrom(query, q.cursor, limit).execute(), limit);
  return { items: page.map(toAlert), nextCursor };
}

export async function firingPage(db: DbOrTrx, alertId: string, q: { limit?: number; cursor?: string }) {
  const limit = q.limit ?? 50;
  const query = db.selectFrom("alert_firings").selectAll().where("alert_id", "=", alertId);
  const { page, nextCursor } = pageOf(await newestFirstFrom(query, q.cursor, limit).execute(), limit);
  return { items: page.map(toFiring), nextCursor };
}

/** Every enabled alert's id and project, for the scheduled sweep. */
export const enabledAlerts = (db: DbOrTrx) =>
  db
    .selectFrom("alerts")
    .select(["id", "project_id", "workspace_id"])
    .where("enabled", "=", 1)
    .orderBy("id")
    .execute();

/**
 * Moves the alert's state to `bucket` only if no check got there first (another process, a
 * concurrent manual check): the one that moves it is the one that may fire.
 */
export async function advanceState(
  db: DbOrTrx,
  row: AlertTable,
  s: { bucket: string; crossed: boolean; value: number | null; at: string },
): Promise<boolean> {
  let q = db
    .updateTable("alerts")
    .set({
      last_bucket: s.bucket,
      last_crossed: s.crossed ? 1 : 0,
      last_value: s.value,
      last_checked_at: s.at,
    })
    .where("id", "=", row.id)
    .where("updated_at", "=", row.updated_at);
  q =
    row.last_bucket === null
      ? q.where("last_bucket", "is", null)
      : q.where("last_bucket", "=", row.last_bucket);
  const res = await q.executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Notes that a check saw the same bucket again (the state stays). */
export const touchChecked = (db: DbOrTrx, id: string, at: string) =>
  db.updateTable("alerts").set({ last_checked_at: at }).where("id", "=", id).execute();
