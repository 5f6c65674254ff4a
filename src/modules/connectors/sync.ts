import { withTransaction } from "../../platform/db/index.js";
import type { ProjectRef } from "../../platform/auth/principal.js";
import { newId } from "../../platform/crypto.js";
import { AppError } from "../../platform/errors.js";
import { type JobContext, RetryLater, emitServiceEvent, enqueueJob } from "../../platform/jobs/index.js";
import { bridge } from "./bridge.js";
import { enqueueForwarding, storeRevenue, upsertRows } from "./sync-results.js";
import { PlatformError, redactSecrets } from "./http.js";
import { platformContext } from "./oauth.js";
import { platforms } from "./platforms/index.js";
import { httpClient } from "./service.js";
import { openCredentials, sealCredentials, setStatus } from "./store.js";
import { type ConnectorType, NeedsReauth, type SyncResult } from "./types.js";
import "./tables.js";
import { SYNC_JOB } from "./schema.js";
import type { ServiceDeps } from "../../platform/deps.js";

/** Seconds between attempts of a sync the platform rate-limited beyond what the client waits out. */
export const SYNC_RETRY = [60, 300, 900];

export interface SyncStarted {
  status: "started";
  syncId: string;
  connectors: string[];
}

/** Enqueues one job per connected connector; a connector already syncing is not synced twice. */
export async function startSync(
  deps: ServiceDeps,
  project: ProjectRef,
  trigger: "manual" | "schedule" = "manual",
): Promise<SyncStarted> {
  const syncId = newId("sync");
  const types: string[] = [];
  await withTransaction(deps.db, async (trx) => {
    await trx
      .insertInto("connector_syncs")
      .values({ id: syncId, project_id: project.id, trigger, created_at: new Date().toISOString() })
      .execute();
    const rows = await trx
      .selectFrom("connectors")
      .select(["id", "type"])
      .where("project_id", "=", project.id)
      .where("status", "!=", "needs_reauth")
      .orderBy("type")
      .execute();
    const now = new Date().toISOString();
    for (const r of rows) {
      const jobId = await enqueueJob(
        trx,
        SYNC_JOB,
        { connectorId: r.id, syncId },
        { uniqueKey: `connector-sync:${r.id}` },
      );
      await trx
        .insertInto("connector_sync_runs")
        .values({
          sync_id: syncId,
          project_id: project.id,
          connector_id: r.id,
          connector_type: r.type,
          status: jobId ? "queued" : "already_running",
          rows: 0,
          error: null,
          created_at: now,
          started_at: null,
          finished_at: null,
        })
        .execute();
      types.push(r.type);
    }
  });
  return { status: "started", syncId, connectors: types };
}

export async function getSync(deps: ServiceDeps, project: ProjectRef, syncId: string) {
  const sync = await deps.db
    .selectFrom("connector_syncs")
    .selectAll()
    .where("id", "=", syncId)
    .where("project_id", "=", project.id)
    .executeTakeFirst();
  if (!sync) throw new AppError("NOT_FOUND", `sync ${syncId} not found`);
  const runs = await deps.db
    .selectFrom("connector_sync_runs")
    .selectAll()
    .where("sync_id", "=", syncId)
    .where("project_id", "=", project.id)
    .orderBy("connector_type")
    .execute();
  const pending = runs.some((r) => r.status === "queued" || r.status === "running");
  const failed = runs.some((r) => r.status === "error");
  return {
    syncId,
    status: pending ? "running" : failed ? "completed_with_errors" : "completed",
    trigger: sync.trigger,
    createdAt: sync.created_at,
    connectors: runs.map((r) => ({
      type: r.connector_type,
      status: r.status,
      rows: r.rows,
      error: r.error,
      startedAt: r.started_at,
      finishedAt: r.finished_at,
    })),
  };
}

/** The scheduled sync: every project with a usable connector. */
export async function syncAllProjects(deps: ServiceDeps): Promise<void> {
  const projects = await deps.db
    .selectFrom("connectors")
    .select(["project_id", "workspace_id"])
    .where("status", "!=", "needs_reauth")
    .distinct()
    .execute();
  for (const p of projects)
    await startSync(deps, { id: p.project_id, workspaceId: p.workspace_id }, "schedule");
}

/** The sync job: one connector, one run. Never overlaps itself (enqueue uniqueKey per connector). */
export async function runSync(
  deps: ServiceDeps,
  payload: { connectorId: string; syncId: string },
  job: Pick<JobContext, "attempt">,
): Promise<void> {
  const { connectorId, syncId } = payload;
  const row = await deps.db
    .selectFrom("connectors")
    .selectAll()
    .where("id", "=", connectorId)
    .executeTakeFirst();
  const runs = deps.db
    .updateTable("connector_sync_runs")
    .where("sync_id", "=", syncId)
    .where("connector_id", "=", connectorId);
  if (!row) {
    await runs
      .set({ status: "error", error: "connector was removed", finished_at: new Date().toISOString() })
      .execute();
    return;
  }
  const type = row.type as ConnectorType;
  const project = { id: row.project_id, workspaceId: row.workspace_id };
  await runs.set({ status: "running", started_at: new Date().toISOString() }).execute();
  await setStatus(deps.db, row.id, "syncing");

  const adapter = platforms[type];
  const creds = openCredentials(deps, row.credentials);
  const ctx = platformContext({
    adapter,
    config: deps.config,
    http: httpClient(deps),
    credentials: creds,
    persist: async (c) => {
      await deps.db
        .updateTable("connectors")
        .set({ credentials: sealCredentials(deps, c) })
        .where("id", "=", row.id)
        .execute();
    },
  });

  let result: SyncResult;
  try {
    result = await adapter.sync({ ...ctx, cursor: JSON.parse(row.cursor) as Record<string, unknown> });
  } catch (err) {
    if (err instanceof PlatformError && err.status === 429 && job.attempt <= SYNC_RETRY.length) {
      await runs.set({ status: "queued", error: "rate limited by the platform; retrying" }).execute();
      await setStatus(deps.db, row.id, "connected");
      throw new RetryLater("rate limited", err.retryAfterMs ?? 0);
    }
    const reauth = err instanceof NeedsReauth;
    const raw = err instanceof PlatformError ? err.platformMessage : (err as Error).message;
    const message = redactSecrets(raw, [creds.accessToken, creds.refreshToken, creds.apiKey]);
    deps.log.warn({ connector: type, syncId, reauth }, "connector sync failed");
    await withTransaction(deps.db, async (trx) => {
      await setStatus(trx, row.id, reauth ? "needs_reauth" : "error", { last_error: message });
      await trx
        .updateTable("connector_sync_runs")
        .set({ status: "error", error: message, finished_at: new Date().toISOString() })
        .where("sync_id", "=", syncId)
        .where("connector_id", "=", connectorId)
        .execute();
      await emitServiceEvent(trx, project, "connector.error", {
        type,
        syncId,
        accountName: row.account_name,
        status: reauth ? "needs_reauth" : "error",
        error: message,
      });
    });
    return;
  }

  const summary = { ...(JSON.parse(row.summary) as Record<string, number>), ...(result.summary ?? {}) };
  await withTransaction(deps.db, async (trx) => {
    await upsertRows(trx, project.id, type, result.rows);
    const revenueDays = result.revenue?.length
      ? await storeRevenue(trx, project.id, type, result.revenue)
      : 0;
    const count = result.rows.length + revenueDays;
    const now = new Date().toISOString();
    await setStatus(trx, row.id, "connected", {
      last_sync: now,
      last_error: null,
      cursor: JSON.stringify(result.cursor),
      summary: JSON.stringify(summary),
    });
    await trx
      .updateTable("connector_sync_runs")
      .set({ status: "done", rows: count, error: null, finished_at: now })
      .where("sync_id", "=", syncId)
      .where("connector_id", "=", connectorId)
      .execute();
    await emitServiceEvent(trx, project, "connector.synced", {
      type,
      syncId,
      accountName: row.account_name,
      rows: count,
      revenueItems: result.revenue?.length ?? 0,
    });
    await bridge.scheduleGoalRecompute(trx, project);
    await enqueueForwarding(trx, project, row.id, type, result.leads ?? []);
  });
}
