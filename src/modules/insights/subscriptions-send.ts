import type { ProjectRef } from "../../platform/auth/principal.js";
import { newId } from "../../platform/crypto.js";
import { withTransaction } from "../../platform/db/index.js";
import { type ServiceDeps, stateOf } from "../../platform/deps.js";
import { AppError } from "../../platform/errors.js";
import { enqueueJob } from "../../platform/jobs/index.js";
import { LIFT_MAILER, listUsers } from "../workspace/service.js";
import { toInsight } from "./insights.js";
import { freshTiles, insightTask } from "./results.js";
import type { InsightKind } from "./schema.js";
import { type MailTile, subscriptionHtml } from "./subscription-email.js";
import { dueMoment } from "./subscriptions-schedule.js";
import { SUBSCRIPTION_SEND_JOB, type SubscriptionSendT } from "./subscriptions-schema.js";
import { claimPeriod, enabledSubscriptions, scheduleOf } from "./subscriptions-store.js";
import type { SubscriptionSendTable, SubscriptionTable } from "./tables.js";

/**
 * Sending subscriptions. The sweep claims each subscription's due moment and queues its send in
 * one transaction (the claim moves only from the value read, so two processes never both send a
 * moment); the send job then computes the tiles on a reader thread and mails them through Lift's
 * own transactional mail, keeping each recipient's outcome on the send.
 */

/** Claims the due moment of one subscription, if any: the send and its job, or nothing. */
async function claimDue(deps: ServiceDeps, row: SubscriptionTable, now: number): Promise<string | null> {
  const period = dueMoment(scheduleOf(row), now, Date.parse(row.starts_at), row.last_period);
  if (period === null) return null;
  return withTransaction(deps.db, async (trx) => {
    if (!(await claimPeriod(trx, row, period))) return null;
    const send: SubscriptionSendTable = {
      id: newId("sbs"),
      subscription_id: row.id,
      project_id: row.project_id,
      period,
      email_status: null,
      error: null,
      created_at: new Date(now).toISOString(),
    };
    await trx.insertInto("subscription_sends").values(send).execute();
    await enqueueJob(trx, SUBSCRIPTION_SEND_JOB, { sendId: send.id });
    return send.id;
  });
}

/**
 * The scheduled sweep: every enabled subscription whose moment has come. Claiming is a few rows
 * each; the reports run later, one send job at a time. One subscription's failure is logged and
 * the rest go on.
 */
export async function checkAllSubscriptions(deps: ServiceDeps, now = Date.now()): Promise<void> {
  for (const row of await enabledSubscriptions(deps.db)) {
    try {
      await claimDue(deps, row, now);
    } catch (err) {
      deps.log.warn({ err, subscriptionId: row.id }, "subscription check failed");
    }
  }
}

const WORDS = { daily: "daily", weekly: "weekly", monthly: "monthly" } as const;
const oneLine = (s: string) => s.replace(/\s+/g, " ").trim().slice(0, 180);

/** What the mail shows: the target's tiles (a dashboard's in grid order, or the one insight). */
async function contentOf(deps: ServiceDeps, sub: SubscriptionTable) {
  const project: ProjectRef = { id: sub.project_id, workspaceId: sub.workspace_id };
  const base = deps.config.publicUrl;
  if (sub.dashboard_id) {
    const row = await deps.db
      .selectFrom("dashboards")
      .selectAll()
      .where("project_id", "=", sub.project_id)
      .where("id", "=", sub.dashboard_id)
      .executeTakeFirst();
    if (!row) return null;
    const answer = await freshTiles(deps, row);
    return {
      what: "dashboard",
      name: row.name,
      link: `${base}/dashboards/${row.id}`,
      linkLabel: "Open the dashboard",
      tiles: answer.tiles as MailTile[],
    };
  }
  const ins = await deps.db
    .selectFrom("insights")
    .selectAll()
    .where("project_id", "=", sub.project_id)
    .where("id", "=", sub.insight_id!)
    .executeTakeFirst();
  if (!ins) return null;
  const { name, description, kind, settings } = toInsight(ins);
  let tile: MailTile;
  try {
    const answer = await deps.reads.run(insightTask, project, { kind: kind as InsightKind, settings });
    tile = { name, description, answer, error: null };
  } catch (err) {
    // A report that refuses its settings now (a deleted cohort) is said in the mail; others retry.
    if (!(err instanceof AppError) || err.status >= 500) throw err;
    tile = { name, description, answer: null, error: { code: err.code, message: err.message } };
  }
  // The dashboard opens it on its report's page with its settings (web: dashboards/OpenInsight),
  // so the mail links to the insight as it is saved then, not a copy of its settings now.
  return {
    what: "insight",
    name,
    link: `${base}/dashboards/insights/${encodeURIComponent(ins.id)}`,
    linkLabel: "Open the insight",
    tiles: [tile],
  };
}

/** The send job: safe to run again, it mails only the recipients without an outcome yet. */
export async function sendSubscription(deps: ServiceDeps, sendId: string): Promise<void> {
  const send = await deps.db
    .selectFrom("subscription_sends")
    .selectAll()
    .where("id", "=", sendId)
    .executeTakeFirst();
  if (!send) return;
  const sub = await deps.db
    .selectFrom("subscriptions")
    .selectAll()
    .where("id", "=", send.subscription_id)
    .executeTakeFirst();
  if (!sub) return;
  const content = await contentOf(deps, sub);
  const record = (set: Partial<SubscriptionSendTable>) =>
    deps.db.updateTable("subscription_sends").set(set).where("id", "=", send.id).execute();
  if (!content) {
    await record({ error: `the ${sub.dashboard_id ? "dashboard" : "insight"} no longer exists` });
    return;
  }
  const title = oneLine(sub.name ?? content.name) || "Lift";
  const frequency = WORDS[sub.frequency as keyof typeof WORDS] ?? sub.frequency;
  const html = subscriptionHtml({
    title,
    intro: `Your ${frequency} ${content.what} for ${send.period.slice(0, 10)} (UTC), computed ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC.`,
    link: content.link,
    linkLabel: content.linkLabel,
    tiles: content.tiles,
    footer:
      "You get this because a member of your Lift workspace subscribed you. Change or stop it in Lift, under the dashboard's Email button.",
  });
  const done: SubscriptionSendT["email"] = send.email_status ? JSON.parse(send.email_status) : [];
  // Someone who left the workspace since the subscription was set gets nothing.
  const members = new Set((await listUsers(deps.db, sub.workspace_id)).map((u) => u.email.toLowerCase()));
  const mailer = stateOf(deps, LIFT_MAILER);
  for (const to of JSON.parse(sub.emails) as string[]) {
    if (!members.has(to) || done.some((d) => d.to === to)) continue;
    const sent = await mailer(deps, sub.workspace_id, {
      to,
      subject: `${title}: your ${frequency} ${content.what}`,
      html,
      tags: { flow: "subscription", subscriptionId: sub.id, sendId: send.id },
    });
    done.push({ to, status: sent.status, error: sent.error });
    await record({ email_status: JSON.stringify(done) });
  }
}
