import type { ProjectRef } from "../../platform/auth/principal.js";
import { creationTime } from "../../platform/creation-time.js";
import { newId } from "../../platform/crypto.js";
import { type DbOrTrx, withTransaction } from "../../platform/db/index.js";
import { validation } from "../../platform/errors.js";
import { planTrends } from "../analytics/service.js";
import { listConversionGoals } from "../goals/service.js";
import { listUsers } from "../workspace/service.js";
import { trendsBodyOf } from "./check.js";
import type { AlertNotifyT, AlertQueryT, AlertT, CreateAlertBodyT, PatchAlertBodyT } from "./schema.js";
import { alertPage, findAlertRow, firingPage, toAlert } from "./store.js";
import type { AlertTable } from "./tables.js";

/** Alerts' configuration: create, list, read, change, delete, and their firings. */

/** Every 400 a query can get from trends (its goal included), now rather than at its first check. */
async function checkQuery(db: DbOrTrx, project: ProjectRef, q: AlertQueryT, now: number) {
  planTrends(trendsBodyOf(q, now), now);
  if (q.goal !== undefined && q.goal !== "any") {
    const goals = await listConversionGoals(db, project);
    if (!goals.some((g) => g.id === q.goal))
      throw validation(`body.query.goal: no conversion goal ${q.goal} in this project (or "any")`);
  }
}

/** Only the workspace's members may be mailed: an alert is no way to mail strangers. */
async function memberEmails(db: DbOrTrx, workspaceId: string, n: AlertNotifyT): Promise<string[]> {
  const members = new Set((await listUsers(db, workspaceId)).map((u) => u.email.toLowerCase()));
  return n.emails.map((raw, i) => {
    const email = raw.trim().toLowerCase();
    if (!members.has(email))
      throw validation(`body.notify.emails[${i}]: ${raw} is not a member of this workspace`);
    return email;
  });
}

export async function createAlert(db: DbOrTrx, project: ProjectRef, body: CreateAlertBodyT): Promise<AlertT> {
  const now = Date.now();
  await checkQuery(db, project, body.query, now);
  const emails = await memberEmails(db, project.workspaceId, body.notify);
  const stamp = creationTime(now);
  const row: AlertTable = {
    id: newId("alr"),
    project_id: project.id,
    workspace_id: project.workspaceId,
    name: body.name,
    query: JSON.stringify(body.query),
    condition: JSON.stringify(body.condition),
    notify: JSON.stringify({ emails, webhook: body.notify.webhook }),
    enabled: body.enabled === false ? 0 : 1,
    last_bucket: null,
    last_crossed: null,
    last_value: null,
    last_checked_at: null,
    created_at: stamp,
    updated_at: stamp,
  };
  await db.insertInto("alerts").values(row).execute();
  return toAlert(row);
}

export const listAlerts = (db: DbOrTrx, project: ProjectRef, q: { limit?: number; cursor?: string }) =>
  alertPage(db, project.id, q);

export const getAlert = async (db: DbOrTrx, project: ProjectRef, id: string) =>
  toAlert(await findAlertRow(db, project.id, id));

/**
 * Changes an alert. A new query or condition starts its state afresh: what the old one saw says
 * nothing about whether the new one has crossed, so its first check may fire.
 */
export async function updateAlert(
  db: DbOrTrx,
  project: ProjectRef,
  id: string,
  patch: PatchAlertBodyT,
): Promise<AlertT> {
  const row = await findAlertRow(db, project.id, id);
  const now = Date.now();
  if (patch.query) await checkQuery(db, project, patch.query, now);
  const notify = patch.notify
    ? JSON.stringify({
        emails: await memberEmails(db, project.workspaceId, patch.notify),
        webhook: patch.notify.webhook,
      })
    : row.notify;
  const reset = patch.query !== undefined || patch.condition !== undefined;
  const next: AlertTable = {
    ...row,
    name: patch.name ?? row.name,
    query: patch.query ? JSON.stringify(patch.query) : row.query,
    condition: patch.condition ? JSON.stringify(patch.condition) : row.condition,
    notify,
    enabled: patch.enabled === undefined ? row.enabled : patch.enabled ? 1 : 0,
    ...(reset ? { last_bucket: null, last_crossed: null, last_value: null } : {}),
    updated_at: new Date(Math.max(now, Date.parse(row.updated_at) + 1)).toISOString(),
  };
  const { id: _id, project_id: _p, workspace_id: _w, created_at: _c, ...changes } = next;
  await db
    .updateTable("alerts")
    .set(changes)
    .where("id", "=", id)
    .where("project_id", "=", project.id)
    .execute();
  return toAlert(next);
}

/** Deletes the alert and its history; a notification still queued finds nothing and stops. */
export async function deleteAlert(db: DbOrTrx, project: ProjectRef, id: string) {
  return withTransaction(db, async (trx) => {
    await findAlertRow(trx, project.id, id);
    await trx.deleteFrom("alert_firings").where("alert_id", "=", id).execute();
    await trx.deleteFrom("alerts").where("id", "=", id).where("project_id", "=", project.id).execute();
    return { id, deleted: true as const };
  });
}

export async function listFirings(
  db: DbOrTrx,
  project: ProjectRef,
  id: string,
  q: { limit?: number; cursor?: string },
) {
  await findAlertRow(db, project.id, id);
  return firingPage(db, id, q);
}
