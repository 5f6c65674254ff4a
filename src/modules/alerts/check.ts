import type { ProjectRef } from "../../platform/auth/principal.js";
import { newId } from "../../platform/crypto.js";
import { withTransaction } from "../../platform/db/index.js";
import type { ServiceDeps } from "../../platform/deps.js";
import { emitServiceEvent, enqueueJob } from "../../platform/jobs/index.js";
import type { Static } from "@sinclair/typebox";
import { type TrendsBody, planTrends, trendsTask } from "../analytics/service.js";
import { conditionText, decide, meets, windowOf } from "./evaluate.js";
import { type AlertConditionT, type AlertQueryT, type EvaluationT, NOTIFY_JOB } from "./schema.js";
import { advanceState, enabledAlerts, findAlertRow, toAlert, toFiring, touchChecked } from "./store.js";
import type { AlertFiringTable, AlertTable } from "./tables.js";

type TrendsBodyT = Static<typeof TrendsBody>;

/**
 * Checking an alert: its trend over the latest complete bucket and the one before, read through
 * analytics' trends read task (a reader thread, never the request's), then the crossing rule
 * (evaluate.ts). A firing, its mail job and its `alert.fired` event are written in one
 * transaction with the state, so a delivery that fails later never loses the firing.
 */

/** The trends body an alert's query asks at `now`: the two buckets it compares. */
export function trendsBodyOf(q: AlertQueryT, now: number): TrendsBodyT {
  const w = windowOf(q.interval, now);
  return {
    series: q.series,
    interval: q.interval,
    period: "custom",
    from: w.from,
    to: w.to,
    ...(q.filter !== undefined ? { filter: q.filter } : {}),
    ...(q.goal !== undefined ? { goal: q.goal } : {}),
  };
}

/**
 * The Trends page showing the alert's series, in the parameters that page keeps in its URL
 * (`series`, `interval`, `period`, `filter`, `goal`), so the link opens the same trend.
 */
export function trendsLink(publicUrl: string, q: AlertQueryT): string {
  const params = new URLSearchParams({
    series: JSON.stringify(q.series),
    interval: q.interval,
    period: q.interval === "day" ? "30d" : "90d",
  });
  if (q.filter && q.filter.length > 0) params.set("filter", JSON.stringify(q.filter));
  if (q.goal) params.set("goal", q.goal);
  return `${publicUrl}/trends?${params}`;
}

export async function checkAlertRow(
  deps: ServiceDeps,
  row: AlertTable,
  now = Date.now(),
): Promise<EvaluationT> {
  const query = JSON.parse(row.query) as AlertQueryT;
  const condition = JSON.parse(row.condition) as AlertConditionT;
  const project: ProjectRef = { id: row.project_id, workspaceId: row.workspace_id };
  const w = windowOf(query.interval, now);
  const result = await deps.reads.run(trendsTask, project, planTrends(trendsBodyOf(query, now), now));
  const points = result.series[0]?.data ?? [];
  const valueAt = (bucket: string) => points.find((p) => p.bucket === bucket)?.value ?? null;
  const value = valueAt(w.bucket);
  const previousValue = valueAt(w.previousBucket);
  const crossed = meets(condition, value, previousValue);
  const base = { bucket: w.bucket, value, previousBucket: w.previousBucket, previousValue, crossed };
  // A disabled alert answers a check without moving its state or notifying anyone.
  if (row.enabled !== 1) return { ...base, fired: false, firing: null };
  const at = new Date(now).toISOString();
  const last = row.last_bucket === null ? null : { bucket: row.last_bucket, crossed: row.last_crossed === 1 };
  const step = decide(last, w.bucket, crossed);
  if (step === "same") {
    await touchChecked(deps.db, row.id, at);
    return { ...base, fired: false, firing: null };
  }
  const firing = await withTransaction(deps.db, async (trx) => {
    if (!(await advanceState(trx, row, { bucket: w.bucket, crossed, value, at }))) return null;
    if (step !== "fire") return null;
    const f: AlertFiringTable = {
      id: newId("alf"),
      alert_id: row.id,
      project_id: row.project_id,
      bucket: w.bucket,
      value,
      previous_value: previousValue,
      condition: row.condition,
      email_status: null,
      created_at: at,
    };
    await trx.insertInto("alert_firings").values(f).execute();
    const alert = toAlert(row);
    if (alert.notify.emails.length > 0) await enqueueJob(trx, NOTIFY_JOB, { firingId: f.id });
    if (alert.notify.webhook)
      await emitServiceEvent(trx, project, "alert.fired", {
        id: f.id,
        alert: { id: row.id, name: row.name },
        series: result.series[0]?.label ?? query.series[0]!.event,
        interval: query.interval,
        bucket: w.bucket,
        value,
        previousBucket: w.previousBucket,
        previousValue,
        condition,
        conditionText: conditionText(condition),
        trendsUrl: trendsLink(deps.config.publicUrl, query),
        firedAt: at,
      });
    return toFiring(f);
  });
  return { ...base, fired: firing !== null, firing };
}

/** `POST /api/alerts/:id/check`: runs the check now and answers what it saw. */
export async function checkAlert(deps: ServiceDeps, project: ProjectRef, id: string, now = Date.now()) {
  return checkAlertRow(deps, await findAlertRow(deps.db, project.id, id), now);
}

/**
 * The scheduled sweep: every enabled alert in turn (one trend read at a time keeps the readers
 * free for people). One alert's failure (its goal deleted since) is logged and the rest go on.
 */
export async function checkAllAlerts(deps: ServiceDeps, now = Date.now()): Promise<void> {
  for (const a of await enabledAlerts(deps.db)) {
    try {
      await checkAlertRow(deps, await findAlertRow(deps.db, a.project_id, a.id), now);
    } catch (err) {
      // Deleted since the list was read, or its query no longer answers (its goal deleted).
      deps.log.warn({ err, alertId: a.id }, "alert check failed");
    }
  }
}
