import { newestFirstFrom, pageOf } from "../../platform/cursor.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import { notFound } from "../../platform/errors.js";
import { nextMoment } from "./subscriptions-schedule.js";
import type {
  FrequencyT,
  ListSubscriptionsQueryT,
  SubscriptionSendT,
  SubscriptionT,
  WeekdayT,
} from "./subscriptions-schema.js";
import type { SubscriptionSendTable, SubscriptionTable } from "./tables.js";
import "./tables.js";

/** The subscriptions' SQL: subscriptions, their claimed periods, and their sends. */

export const scheduleOf = (r: SubscriptionTable) => ({
  frequency: r.frequency as FrequencyT,
  hour: Number(r.hour),
  weekday: r.weekday as WeekdayT | null,
  dayOfMonth: r.day_of_month === null ? null : Number(r.day_of_month),
});

export const toSubscription = (r: SubscriptionTable, now = Date.now()): SubscriptionT => ({
  id: r.id,
  name: r.name,
  target: r.dashboard_id ? { dashboardId: r.dashboard_id } : { insightId: r.insight_id! },
  ...scheduleOf(r),
  emails: JSON.parse(r.emails) as string[],
  enabled: r.enabled === 1,
  lastPeriod: r.last_period,
  nextAt:
    r.enabled === 1
      ? new Date(nextMoment(scheduleOf(r), Math.max(now, Date.parse(r.starts_at) - 1))).toISOString()
      : null,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export const toSend = (r: SubscriptionSendTable): SubscriptionSendT => ({
  id: r.id,
  subscriptionId: r.subscription_id,
  period: r.period,
  email: r.email_status ? (JSON.parse(r.email_status) as SubscriptionSendT["email"]) : [],
  error: r.error,
  createdAt: r.created_at,
});

export async function findSubscriptionRow(db: DbOrTrx, projectId: string, id: string) {
  const row = await db
    .selectFrom("subscriptions")
    .selectAll()
    .where("project_id", "=", projectId)
    .where("id", "=", id)
    .executeTakeFirst();
  if (!row) throw notFound("subscription", id);
  return row;
}

export async function subscriptionPage(db: DbOrTrx, projectId: string, q: ListSubscriptionsQueryT) {
  const limit = q.limit ?? 50;
  let query = db.selectFrom("subscriptions").selectAll().where("project_id", "=", projectId);
  if (q.dashboardId) query = query.where("dashboard_id", "=", q.dashboardId);
  if (q.insightId) query = query.where("insight_id", "=", q.insightId);
  const { page, nextCursor } = pageOf(await newestFirstFrom(query, q.cursor, limit).execute(), limit);
  return { items: page.map((r) => toSubscription(r)), nextCursor };
}

export async function sendPage(db: DbOrTrx, subscriptionId: string, q: { limit?: number; cursor?: string }) {
  const limit = q.limit ?? 50;
  const query = db.selectFrom("subscription_sends").selectAll().where("subscription_id", "=", subscriptionId);
  const { page, nextCursor } = pageOf(await newestFirstFrom(query, q.cursor, limit).execute(), limit);
  return { items: page.map(toSend), nextCursor };
}

/** Every enabled subscription, for the scheduled sweep. */
export const enabledSubscriptions = (db: DbOrTrx) =>
  db.selectFrom("subscriptions").selectAll().where("enabled", "=", 1).orderBy("id").execute();

/**
 * Moves the subscription's last period to `period` only from the value it was read with: of two
 * sweeps that read the same row, one moves it and sends; the other finds it moved and stops.
 */
export async function claimPeriod(db: DbOrTrx, row: SubscriptionTable, period: string): Promise<boolean> {
  let q = db
    .updateTable("subscriptions")
    .set({ last_period: period })
    .where("id", "=", row.id)
    .where("updated_at", "=", row.updated_at);
  q =
    row.last_period === null
      ? q.where("last_period", "is", null)
      : q.where("last_period", "=", row.last_period);
  const res = await q.executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** Deletes the subscriptions of a dashboard or an insight being deleted, and their sends. */
export async function deleteSubscriptionsOf(
  db: DbOrTrx,
  projectId: string,
  of: { dashboardId: string } | { insightId: string },
) {
  const column = "dashboardId" in of ? "dashboard_id" : "insight_id";
  const id = "dashboardId" in of ? of.dashboardId : of.insightId;
  const ids = db
    .selectFrom("subscriptions")
    .select("id")
    .where("project_id", "=", projectId)
    .where(column, "=", id);
  await db.deleteFrom("subscription_sends").where("subscription_id", "in", ids).execute();
  await db.deleteFrom("subscriptions").where("project_id", "=", projectId).where(column, "=", id).execute();
}
