import { type ServiceDeps, stateOf } from "../../platform/deps.js";
import { LIFT_MAILER, listUsers } from "../workspace/service.js";
import { trendsLink } from "./check.js";
import { conditionText } from "./evaluate.js";
import type { AlertConditionT, AlertFiringT, AlertNotifyT, AlertQueryT } from "./schema.js";

/**
 * Mails a firing to the alert's recipients through Lift's own transactional mail (the `alert-fired`
 * template of the catalog; its send log, suppressions and delivery retries). Each recipient's
 * outcome is kept on the firing as it is known, so a retried job mails only those not yet done.
 */

const fmt = (v: number | null) => (v === null ? "no value" : String(Number(v.toFixed(6))));

/** "2026-03-04" for a day, "the week of 2026-02-23" for a week. */
const bucketText = (bucket: string, interval: "day" | "week") =>
  interval === "day" ? bucket.slice(0, 10) : `the week of ${bucket.slice(0, 10)}`;

export async function notifyFiring(deps: ServiceDeps, firingId: string): Promise<void> {
  const f = await deps.db
    .selectFrom("alert_firings")
    .selectAll()
    .where("id", "=", firingId)
    .executeTakeFirst();
  if (!f) return;
  const alert = await deps.db
    .selectFrom("alerts")
    .selectAll()
    .where("id", "=", f.alert_id)
    .executeTakeFirst();
  if (!alert) return;
  const query = JSON.parse(alert.query) as AlertQueryT;
  const notify = JSON.parse(alert.notify) as AlertNotifyT;
  const condition = JSON.parse(f.condition) as AlertConditionT;
  const done: AlertFiringT["email"] = f.email_status ? JSON.parse(f.email_status) : [];
  // Someone who left the workspace since the alert was set gets nothing.
  const members = new Set((await listUsers(deps.db, alert.workspace_id)).map((u) => u.email.toLowerCase()));
  const series = query.series[0]!;
  const variables = {
    alertName: alert.name,
    seriesLabel: series.name ?? series.event,
    value: fmt(f.value === null ? null : Number(f.value)),
    condition: conditionText(condition),
    bucket: bucketText(f.bucket, query.interval),
    trendsUrl: trendsLink(deps.config.publicUrl, query),
    ...(f.previous_value !== null ? { previousValue: fmt(Number(f.previous_value)) } : {}),
  };
  const mailer = stateOf(deps, LIFT_MAILER);
  for (const to of notify.emails) {
    if (!members.has(to) || done.some((d) => d.to === to)) continue;
    const sent = await mailer(deps, alert.workspace_id, {
      to,
      commId: "alert-fired",
      variables,
      tags: { flow: "alert", alertId: alert.id, firingId: f.id },
    });
    done.push({ to, status: sent.status, error: sent.error });
    await deps.db
      .updateTable("alert_firings")
      .set({ email_status: JSON.stringify(done) })
      .where("id", "=", f.id)
      .execute();
  }
}
