import type { ProjectRef } from "../../platform/auth/principal.js";
import { creationTime } from "../../platform/creation-time.js";
import { newId } from "../../platform/crypto.js";
import { type DbOrTrx, withTransaction } from "../../platform/db/index.js";
import { validation } from "../../platform/errors.js";
import { listUsers } from "../workspace/service.js";
import { stampAfter } from "./insights.js";
import type {
  CreateSubscriptionBodyT,
  FrequencyT,
  ListSubscriptionsQueryT,
  PatchSubscriptionBodyT,
  SubscriptionT,
  WeekdayT,
} from "./subscriptions-schema.js";
import { findSubscriptionRow, sendPage, subscriptionPage, toSubscription } from "./subscriptions-store.js";
import type { SubscriptionTable } from "./tables.js";

/** Subscriptions' configuration: create, list, read, change, delete, and their sends. */

/** Only the workspace's members may be mailed: a subscription is no way to mail project data to strangers. */
async function memberEmails(db: DbOrTrx, workspaceId: string, emails: string[]): Promise<string[]> {
  const members = new Set((await listUsers(db, workspaceId)).map((u) => u.email.toLowerCase()));
  return emails.map((raw, i) => {
    const email = raw.trim().toLowerCase();
    if (!members.has(email)) throw validation(`body.emails[${i}]: ${raw} is not a member of this workspace`);
    return email;
  });
}

/** 400 unless the day fields fit the frequency: a weekday for weekly only, a day of month for monthly only. */
function checkSchedule(s: { frequency: FrequencyT; weekday: WeekdayT | null; dayOfMonth: number | null }) {
  if (s.frequency === "weekly" && s.weekday === null)
    throw validation("body.weekday is required for a weekly subscription");
  if (s.frequency !== "weekly" && s.weekday !== null)
    throw validation(`body.weekday: only a weekly subscription has one (this one is ${s.frequency})`);
  if (s.frequency !== "monthly" && s.dayOfMonth !== null)
    throw validation(`body.dayOfMonth: only a monthly subscription has one (this one is ${s.frequency})`);
}

async function checkTarget(db: DbOrTrx, project: ProjectRef, target: CreateSubscriptionBodyT["target"]) {
  const [table, id, what] =
    "dashboardId" in target
      ? (["dashboards", target.dashboardId, "dashboard"] as const)
      : (["insights", target.insightId, "insight"] as const);
  const found = await db
    .selectFrom(table)
    .select("id")
    .where("project_id", "=", project.id)
    .where("id", "=", id)
    .executeTakeFirst();
  if (!found) throw validation(`body.target: no ${what} ${id} in this project`);
}

export async function createSubscription(
  db: DbOrTrx,
  project: ProjectRef,
  body: CreateSubscriptionBodyT,
): Promise<SubscriptionT> {
  const schedule = {
    frequency: body.frequency,
    weekday: body.weekday ?? null,
    dayOfMonth: body.frequency === "monthly" ? (body.dayOfMonth ?? 1) : (body.dayOfMonth ?? null),
  };
  checkSchedule(schedule);
  await checkTarget(db, project, body.target);
  const emails = await memberEmails(db, project.workspaceId, body.emails);
  const stamp = creationTime();
  const row: SubscriptionTable = {
    id: newId("sub"),
    project_id: project.id,
    workspace_id: project.workspaceId,
    name: body.name ?? null,
    dashboard_id: "dashboardId" in body.target ? body.target.dashboardId : null,
    insight_id: "insightId" in body.target ? body.target.insightId : null,
    frequency: schedule.frequency,
    weekday: schedule.weekday,
    day_of_month: schedule.dayOfMonth,
    hour: body.hour,
    emails: JSON.stringify(emails),
    enabled: body.enabled === false ? 0 : 1,
    starts_at: stamp,
    last_period: null,
    created_at: stamp,
    updated_at: stamp,
  };
  await db.insertInto("subscriptions").values(row).execute();
  return toSubscription(row);
}

export const listSubscriptions = (db: DbOrTrx, project: ProjectRef, q: ListSubscriptionsQueryT) =>
  subscriptionPage(db, project.id, q);

export const getSubscription = async (db: DbOrTrx, project: ProjectRef, id: string) =>
  toSubscription(await findSubscriptionRow(db, project.id, id));

/**
 * Changes a subscription. A new schedule starts from now: a moment earlier today under the new
 * hour is not sent at once, the next one is.
 */
export async function updateSubscription(
  db: DbOrTrx,
  project: ProjectRef,
  id: string,
  patch: PatchSubscriptionBodyT,
): Promise<SubscriptionT> {
  const row = await findSubscriptionRow(db, project.id, id);
  const frequency = patch.frequency ?? (row.frequency as FrequencyT);
  const changedFrequency = patch.frequency !== undefined && patch.frequency !== row.frequency;
  // A new frequency drops the old day fields unless they are given again.
  const keep = <T>(given: T | null | undefined, old: T | null) =>
    given !== undefined ? given : changedFrequency ? null : old;
  const schedule = {
    frequency,
    weekday: keep(patch.weekday, row.weekday as WeekdayT | null),
    dayOfMonth: keep(patch.dayOfMonth, row.day_of_month),
  };
  if (frequency === "monthly" && schedule.dayOfMonth === null) schedule.dayOfMonth = 1;
  checkSchedule(schedule);
  const emails = patch.emails
    ? JSON.stringify(await memberEmails(db, project.workspaceId, patch.emails))
    : row.emails;
  const hour = patch.hour ?? Number(row.hour);
  const rescheduled =
    frequency !== row.frequency ||
    schedule.weekday !== row.weekday ||
    schedule.dayOfMonth !== (row.day_of_month === null ? null : Number(row.day_of_month)) ||
    hour !== Number(row.hour) ||
    (patch.enabled === true && row.enabled !== 1);
  const now = new Date().toISOString();
  const next: SubscriptionTable = {
    ...row,
    name: patch.name !== undefined ? patch.name : row.name,
    frequency,
    weekday: schedule.weekday,
    day_of_month: schedule.dayOfMonth,
    hour,
    emails,
    enabled: patch.enabled === undefined ? row.enabled : patch.enabled ? 1 : 0,
    starts_at: rescheduled ? now : row.starts_at,
    updated_at: stampAfter(row.updated_at),
  };
  const { id: _i, project_id: _p, workspace_id: _w, created_at: _c, last_period: _l, ...changes } = next;
  await db
    .updateTable("subscriptions")
    .set(changes)
    .where("id", "=", id)
    .where("project_id", "=", project.id)
    .execute();
  return toSubscription(next);
}

/** Deletes the subscription and its history; a send still queued finds nothing and stops. */
export async function deleteSubscription(db: DbOrTrx, project: ProjectRef, id: string) {
  return withTransaction(db, async (trx) => {
    await findSubscriptionRow(trx, project.id, id);
    await trx.deleteFrom("subscription_sends").where("subscription_id", "=", id).execute();
    await trx.deleteFrom("subscriptions").where("id", "=", id).where("project_id", "=", project.id).execute();
    return { id, deleted: true as const };
  });
}

export async function listSends(
  db: DbOrTrx,
  project: ProjectRef,
  id: string,
  q: { limit?: number; cursor?: string },
) {
  await findSubscriptionRow(db, project.id, id);
  return sendPage(db, id, q);
}
