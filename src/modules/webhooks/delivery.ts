import { withTransaction, type Db, type DbOrTrx } from "../../platform/db/index.js";
import type { Config } from "../../config.js";
import type { ProjectRef } from "../../platform/auth/principal.js";
import type { ServiceDeps } from "../../platform/deps.js";
import { newId } from "../../platform/crypto.js";
import { AppError, notFound } from "../../platform/errors.js";
import { type JobContext, RetryLater, type ServiceEvent, enqueueJob } from "../../platform/jobs/index.js";
import { findEndpoint } from "./service.js";
import { sendWebhook } from "./sender.js";
import { signedHeaders } from "./signing.js";
import { resolveWebhookTarget } from "./ssrf.js";
import type { WebhookEndpointTable } from "./tables.js";
import "./tables.js";
import type { Static } from "@sinclair/typebox";
import { DELIVER_JOB } from "./schema.js";

/** Seconds between attempts (Svix's schedule): 8 attempts over about a day and a half. */
export const WEBHOOK_RETRY_SECONDS = [5, 300, 1800, 7200, 18_000, 36_000, 36_000];
export const MAX_ATTEMPTS = WEBHOOK_RETRY_SECONDS.length + 1;
/** An endpoint whose attempts have all failed for this long is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * 3_600_000;

type DeliverPayload = Static<typeof DELIVER_JOB.payload>;

/**
 * Service-event subscriber: one delivery row per (event, subscribed active endpoint). The unique
 * index makes a re-run of the dispatch a no-op, and the job is enqueued in the same transaction as
 * its row so neither exists without the other.
 */
export async function fanOut(db: Db, event: ServiceEvent): Promise<void> {
  let q = db
    .selectFrom("webhook_endpoints")
    .select(["id", "events"])
    .where("workspace_id", "=", event.workspaceId)
    .where("status", "=", "active");
  if (event.projectId) q = q.where("project_id", "=", event.projectId);
  const endpoints = (await q.execute()).filter((e) =>
    (JSON.parse(e.events) as string[]).includes(event.type),
  );
  if (endpoints.length === 0) return;
  const payload = JSON.stringify({
    id: event.id,
    type: event.type,
    createdAt: event.createdAt,
    data: event.data,
  });
  for (const ep of endpoints) {
    await withTransaction(db, async (trx) => {
      const now = new Date().toISOString();
      const id = newId("msg");
      const inserted = await trx
        .insertInto("webhook_deliveries")
        .values({
          id,
          endpoint_id: ep.id,
          event_id: event.id,
          event_type: event.type,
          payload,
          status: "pending",
          generation: 1,
          attempt_count: 0,
          last_error: null,
          created_at: now,
          updated_at: now,
        })
        .onConflict((oc) => oc.columns(["event_id", "endpoint_id"]).doNothing())
        .returning("id")
        .execute();
      if (inserted.length > 0) await enqueueJob(trx, DELIVER_JOB, { deliveryId: id, generation: 1 });
    });
  }
}

/** What an attempt says until its answer is recorded: the worker died while it was being made. */
export const UNANSWERED_ATTEMPT = "no answer recorded: the worker stopped during this attempt";

/**
 * Logs the attempt before the request goes out (and counts it on the delivery), so an attempt cut
 * short by a crash stays in the log, and the next process numbers its own attempt after it.
 */
async function startAttempt(db: Db, deliveryId: string, attempt: number): Promise<string> {
  const id = newId("att");
  await withTransaction(db, async (trx) => {
    await trx
      .insertInto("webhook_attempts")
      .values({
        id,
        delivery_id: deliveryId,
        attempt,
        succeeded: 0,
        status_code: null,
        duration_ms: 0,
        error: UNANSWERED_ATTEMPT,
        created_at: new Date().toISOString(),
      })
      .execute();
    await trx
      .updateTable("webhook_deliveries")
      .set({ attempt_count: attempt, updated_at: new Date().toISOString() })
      .where("id", "=", deliveryId)
      .execute();
  });
  return id;
}

async function finishAttempt(
  db: DbOrTrx,
  attemptId: string,
  r: { succeeded: boolean; statusCode: number | null; durationMs: number; error: string | null },
): Promise<void> {
  await db
    .updateTable("webhook_attempts")
    .set({
      succeeded: r.succeeded ? 1 : 0,
      status_code: r.statusCode,
      duration_ms: r.durationMs,
      error: r.error,
    })
    .where("id", "=", attemptId)
    .execute();
}

async function setDelivery(
  db: DbOrTrx,
  id: string,
  status: "pending" | "succeeded" | "failed",
  attemptCount: number,
  error: string | null,
) {
  await db
    .updateTable("webhook_deliveries")
    .set({ status, attempt_count: attemptCount, last_error: error, updated_at: new Date().toISOString() })
    .where("id", "=", id)
    .execute();
}

/** Disables the endpoint and closes its pending deliveries (they stay in the log and can be retried). */
async function disableEndpoint(db: DbOrTrx, id: string, reason: string) {
  const now = new Date().toISOString();
  await withTransaction(db, async (trx) => {
    await trx
      .updateTable("webhook_endpoints")
      .set({ status: "disabled", disabled_reason: reason, updated_at: now })
      .where("id", "=", id)
      .where("status", "=", "active")
      .execute();
    await trx
      .updateTable("webhook_deliveries")
      .set({ status: "failed", last_error: `endpoint disabled: ${reason}`, updated_at: now })
      .where("endpoint_id", "=", id)
      .where("status", "=", "pending")
      .execute();
  });
}

/** Starts the failure clock on the first failure, and disables the endpoint once it has run 5 days. */
async function noteFailure(db: DbOrTrx, config: Config, ep: WebhookEndpointTable): Promise<void> {
  const now = Date.now();
  if (ep.failing_since === null) {
    await db
      .updateTable("webhook_endpoints")
      .set({ failing_since: now })
      .where("id", "=", ep.id)
      .where("failing_since", "is", null)
      .execute();
    return;
  }
  if (now - Number(ep.failing_since) >= DISABLE_AFTER_MS * config.retryScale) {
    await disableEndpoint(db, ep.id, "every delivery failed for 5 days");
  }
}

/**
 * One attempt of one delivery (the job `DELIVER_JOB`); throws to be retried on the schedule (or
 * after Retry-After).
 */
export async function deliverOnce(
  deps: Pick<ServiceDeps, "db" | "secrets">,
  p: DeliverPayload,
  ctx: JobContext,
): Promise<void> {
  const { db, secrets } = deps;
  const delivery = await db
    .selectFrom("webhook_deliveries")
    .selectAll()
    .where("id", "=", p.deliveryId)
    .executeTakeFirst();
  // Deleted, or superseded by a manual retry: nothing to do.
  if (!delivery || delivery.generation !== p.generation || delivery.status !== "pending") return;
  const ep = await db
    .selectFrom("webhook_endpoints")
    .selectAll()
    .where("id", "=", delivery.endpoint_id)
    .executeTakeFirst();
  if (!ep) return;
  if (ep.status !== "active") {
    await setDelivery(db, delivery.id, "failed", delivery.attempt_count, "endpoint is disabled");
    return;
  }
  const attempt = delivery.attempt_count + 1;
  const last = ctx.attempt >= MAX_ATTEMPTS;
  const attemptId = await startAttempt(db, delivery.id, attempt);
  let result: { succeeded: boolean; statusCode: number | null; durationMs: number; error: string | null };
  let retryAfter: number | null = null;
  try {
    // Checked again at each delivery: the name may now resolve somewhere private (DNS rebinding).
    const target = await resolveWebhookTarget(ep.url, ctx.config.allowPrivateWebhookTargets);
    const secret = secrets.decrypt(ep.secret_sealed);
    const sent = await sendWebhook(
      ctx.config,
      target,
      signedHeaders(secret, delivery.id, delivery.payload),
      delivery.payload,
    );
    const ok = sent.statusCode !== null && sent.statusCode >= 200 && sent.statusCode < 300;
    const error =
      sent.error ??
      (ok
        ? null
        : sent.statusCode !== null && sent.statusCode >= 300 && sent.statusCode < 400
          ? `redirect ${sent.statusCode} not followed`
          : `HTTP ${sent.statusCode}`);
    result = { succeeded: ok, statusCode: sent.statusCode, durationMs: sent.durationMs, error };
    retryAfter = sent.retryAfterSeconds;
  } catch (err) {
    const message = err instanceof AppError ? err.message : err instanceof Error ? err.message : String(err);
    result = { succeeded: false, statusCode: null, durationMs: 0, error: message };
  }
  await finishAttempt(db, attemptId, result);
  if (result.succeeded) {
    await setDelivery(db, delivery.id, "succeeded", attempt, null);
    await db.updateTable("webhook_endpoints").set({ failing_since: null }).where("id", "=", ep.id).execute();
    return;
  }
  if (result.statusCode === 410) {
    // 410 Gone: the receiver says the subscription is over.
    await setDelivery(db, delivery.id, "failed", attempt, result.error);
    await disableEndpoint(db, ep.id, "receiver answered 410 Gone");
    return;
  }
  await noteFailure(db, ctx.config, ep);
  const still = await db
    .selectFrom("webhook_endpoints")
    .select("status")
    .where("id", "=", ep.id)
    .executeTakeFirst();
  if (last || still?.status !== "active") {
    await setDelivery(db, delivery.id, "failed", attempt, result.error);
    return;
  }
  await setDelivery(db, delivery.id, "pending", attempt, result.error);
  // Retry-After is scaled like the schedule; the worker waits for the longer of the two.
  if (retryAfter !== null)
    throw new RetryLater(result.error ?? "failed", retryAfter * 1000 * ctx.config.retryScale);
  throw new Error(result.error ?? "failed");
}

/** Re-sends a delivery now with a fresh schedule; a job still queued for it stops (older generation). */
export async function retryDelivery(
  db: DbOrTrx,
  project: ProjectRef,
  endpointId: string,
  deliveryId: string,
) {
  const ep = await findEndpoint(db, project, endpointId);
  if (ep.status !== "active") {
    throw new AppError("CONFLICT", "webhook is disabled; re-enable it with PATCH /api/webhooks first");
  }
  return withTransaction(db, async (trx) => {
    const d = await trx
      .selectFrom("webhook_deliveries")
      .select(["id", "generation"])
      .where("id", "=", deliveryId)
      .where("endpoint_id", "=", ep.id)
      .executeTakeFirst();
    if (!d) throw notFound("delivery", deliveryId);
    const generation = d.generation + 1;
    await trx
      .updateTable("webhook_deliveries")
      .set({ status: "pending", generation, updated_at: new Date().toISOString() })
      .where("id", "=", d.id)
      .execute();
    await enqueueJob(trx, DELIVER_JOB, { deliveryId: d.id, generation });
    return { id: d.id, status: "pending" as const };
  });
}
