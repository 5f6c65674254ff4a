import { creationTime } from "../../platform/creation-time.js";
import { newestFirstFrom, pageOf } from "../../platform/cursor.js";
import { withTransaction, type Db, type Trx, type DbOrTrx } from "../../platform/db/index.js";
import type { ProjectRef } from "../../platform/auth/principal.js";
import type { SecretBox } from "../../platform/crypto.js";
import { newId } from "../../platform/crypto.js";
import { notFound } from "../../platform/errors.js";
import type { CreateWebhook, DeliveryT, PatchWebhook, WebhookT } from "./schema.js";
import { generateSecret, validateSecret } from "./signing.js";
import { resolveWebhookTarget } from "./ssrf.js";
import type { WebhookEndpointTable } from "./tables.js";
import "./tables.js";

export interface WebhookDeps {
  db: Db;
  secrets: SecretBox;
  allowPrivateTargets: boolean;
}

export function toWebhook(row: WebhookEndpointTable): WebhookT {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    status: row.status,
    disabledReason: row.disabled_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function findEndpoint(
  db: DbOrTrx,
  project: ProjectRef,
  id: string,
): Promise<WebhookEndpointTable> {
  const row = await db
    .selectFrom("webhook_endpoints")
    .selectAll()
    .where("id", "=", id)
    .where("project_id", "=", project.id)
    .executeTakeFirst();
  if (!row) throw notFound("webhook", id);
  return row;
}

export async function listWebhooks(db: DbOrTrx, project: ProjectRef): Promise<WebhookT[]> {
  const rows = await db
    .selectFrom("webhook_endpoints")
    .selectAll()
    .where("project_id", "=", project.id)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
  return rows.map(toWebhook);
}

/** Creates a subscription; the secret (given or generated) is returned only here. */
export async function createWebhook(
  deps: WebhookDeps,
  project: ProjectRef,
  body: CreateWebhook,
): Promise<WebhookT & { secret: string }> {
  await resolveWebhookTarget(body.url, deps.allowPrivateTargets);
  const secret = body.secret === undefined ? generateSecret() : validateSecret(body.secret);
  const now = creationTime();
  const row: WebhookEndpointTable = {
    id: newId("wh"),
    workspace_id: project.workspaceId,
    project_id: project.id,
    url: body.url,
    events: JSON.stringify(body.events),
    secret_sealed: deps.secrets.encrypt(secret),
    status: "active",
    disabled_reason: null,
    failing_since: null,
    created_at: now,
    updated_at: now,
  };
  await deps.db.insertInto("webhook_endpoints").values(row).execute();
  return { ...toWebhook(row), secret };
}

/** Changes url or events, or re-enables (clearing the failure clock) or disables by hand. */
export async function patchWebhook(
  deps: WebhookDeps,
  project: ProjectRef,
  patch: PatchWebhook,
): Promise<WebhookT> {
  const row = await findEndpoint(deps.db, project, patch.id);
  if (patch.url !== undefined) await resolveWebhookTarget(patch.url, deps.allowPrivateTargets);
  const set: Partial<WebhookEndpointTable> = { updated_at: new Date().toISOString() };
  if (patch.url !== undefined) set.url = patch.url;
  if (patch.events !== undefined) set.events = JSON.stringify(patch.events);
  if (patch.status === "active" && row.status !== "active") {
    Object.assign(set, { status: "active", disabled_reason: null, failing_since: null });
  } else if (patch.status === "disabled" && row.status !== "disabled") {
    Object.assign(set, { status: "disabled", disabled_reason: "disabled by a user" });
  }
  await deps.db.updateTable("webhook_endpoints").set(set).where("id", "=", row.id).execute();
  return toWebhook({ ...row, ...set });
}

export async function deleteWebhook(db: DbOrTrx, project: ProjectRef, id: string) {
  const row = await findEndpoint(db, project, id);
  await withTransaction(db, async (trx) => {
    // Explicit rather than relying on SQLite's foreign_keys pragma for the cascade.
    const deliveries = trx.selectFrom("webhook_deliveries").select("id").where("endpoint_id", "=", row.id);
    await trx.deleteFrom("webhook_attempts").where("delivery_id", "in", deliveries).execute();
    await trx.deleteFrom("webhook_deliveries").where("endpoint_id", "=", row.id).execute();
    await trx.deleteFrom("webhook_endpoints").where("id", "=", row.id).execute();
  });
  return { id: row.id, deleted: true };
}

/** Deliveries newest first with every attempt, keyset-paginated by (createdAt, id). */
export async function listDeliveries(
  db: DbOrTrx,
  project: ProjectRef,
  endpointId: string,
  opts: { limit?: number; cursor?: string },
): Promise<{ data: DeliveryT[]; nextCursor: string | null }> {
  await findEndpoint(db, project, endpointId);
  const limit = opts.limit ?? 20;
  const q = db.selectFrom("webhook_deliveries").selectAll().where("endpoint_id", "=", endpointId);
  const { page, nextCursor } = pageOf(await newestFirstFrom(q, opts.cursor, limit).execute(), limit);
  const attempts = page.length
    ? await db
        .selectFrom("webhook_attempts")
        .selectAll()
        .where(
          "delivery_id",
          "in",
          page.map((r) => r.id),
        )
        .orderBy("attempt", "asc")
        .execute()
    : [];
  const data = page.map((r) => ({
    id: r.id,
    eventId: r.event_id,
    eventType: r.event_type,
    status: r.status,
    attemptCount: r.attempt_count,
    lastError: r.last_error,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    attempts: attempts
      .filter((a) => a.delivery_id === r.id)
      .map((a) => ({
        attempt: a.attempt,
        succeeded: a.succeeded === 1,
        statusCode: a.status_code,
        durationMs: a.duration_ms,
        error: a.error,
        createdAt: a.created_at,
      })),
  }));
  return { data, nextCursor };
}

/**
 * Erasure: deliveries of the given service events (their bodies hold the erased person's data) and
 * their attempts go; a delivery job still queued finds no row and stops. Returns how many went.
 */
export async function eraseDeliveriesOf(trx: Trx, eventIds: string[]): Promise<number> {
  let n = 0;
  for (let i = 0; i < eventIds.length; i += 400) {
    const chunk = eventIds.slice(i, i + 400);
    const ids = (
      await trx.selectFrom("webhook_deliveries").select("id").where("event_id", "in", chunk).execute()
    ).map((r) => r.id);
    if (ids.length === 0) continue;
    await trx.deleteFrom("webhook_attempts").where("delivery_id", "in", ids).execute();
    await trx.deleteFrom("webhook_deliveries").where("id", "in", ids).execute();
    n += ids.length;
  }
  return n;
}
