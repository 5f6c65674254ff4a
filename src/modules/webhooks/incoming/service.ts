import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { SecretBox } from "../../../platform/crypto.js";
import type { Db, DbOrTrx } from "../../../platform/db/index.js";
import { AppError, notFound } from "../../../platform/errors.js";
import { ingestServerEvents } from "../../events/service.js";
import { upsertLeadByEmail } from "../../identity/service.js";
import { firstProject, getProject } from "../../workspace/service.js";
import { SOURCES, type Source } from "../schema.js";
import "../tables.js";
import { codeHostAdapter } from "./code-host.js";
import { crmAdapter } from "./crm.js";
import { paymentsAdapter } from "./payments.js";
import type { Action, IncomingRequest, SourceAdapter } from "./types.js";
import { boundedCache } from "../../../platform/cache.js";
import { type ServiceDeps, appSlot, stateOf } from "../../../platform/deps.js";

const ADAPTERS: Record<Source, SourceAdapter> = {
  crm: crmAdapter,
  payments: paymentsAdapter,
  code_host: codeHostAdapter,
};

export function knownSource(source: string): Source {
  if (!(SOURCES as readonly string[]).includes(source)) throw notFound("webhook source", source);
  return source as Source;
}

/**
 * Every source with whether the workspace has set its secret (never the secret itself) and the
 * address the platform should call.
 */
export async function listSources(db: DbOrTrx, workspaceId: string, publicUrl: string) {
  const rows = await db
    .selectFrom("webhook_sources")
    .select(["source", "updated_at"])
    .where("workspace_id", "=", workspaceId)
    .execute();
  const set = new Map(rows.map((r) => [r.source, r.updated_at]));
  return SOURCES.map((source) => ({
    source,
    configured: set.has(source),
    updatedAt: set.get(source) ?? null,
    url: `${publicUrl}/api/webhooks/${source}`,
  }));
}

/** Stores (or replaces) a workspace's verification secret for a source, encrypted. */
export async function setSourceSecret(
  db: DbOrTrx,
  secrets: SecretBox,
  workspaceId: string,
  source: string,
  secret: string,
) {
  const s = knownSource(source);
  const sealed = secrets.encrypt(secret);
  const now = new Date().toISOString();
  await db
    .insertInto("webhook_sources")
    .values({ workspace_id: workspaceId, source: s, secret_sealed: sealed, updated_at: now })
    .onConflict((oc) =>
      oc.columns(["workspace_id", "source"]).doUpdateSet({ secret_sealed: sealed, updated_at: now }),
    )
    .execute();
  return { source: s, configured: true };
}

/**
 * The workspace whose secret verifies the request. Every configured secret for the source is tried,
 * without stopping at the first match, so timing does not tell how many workspaces there are or
 * which one matched.
 */
async function verifyingWorkspaces(deps: ServiceDeps, source: Source, check: (secret: string) => boolean) {
  const rows = await deps.db
    .selectFrom("webhook_sources")
    .select(["workspace_id", "secret_sealed"])
    .where("source", "=", source)
    .orderBy("updated_at", "asc")
    .execute();
  const matches: string[] = [];
  for (const r of rows) {
    if (check(opened(deps, r.secret_sealed))) matches.push(r.workspace_id);
  }
  return matches;
}

// Decrypted source secrets, keyed by their sealed form (a new secret has a new sealed form, so a
// replaced secret is never served stale). Decryption was a third of the per-secret cost of the
// try-every-workspace rule (bench/webhooks).
const OPENED = appSlot("webhooks.opened-secrets", () => boundedCache<string, string>(10_000));
function opened(deps: ServiceDeps, sealed: string): string {
  const cache = stateOf(deps, OPENED);
  let plain = cache.get(sealed);
  if (plain === undefined) {
    plain = deps.secrets.decrypt(sealed);
    cache.set(sealed, plain);
  }
  return plain;
}

async function resolveProject(
  db: DbOrTrx,
  workspaces: string[],
  projectId: string | undefined,
): Promise<ProjectRef> {
  for (const ws of workspaces) {
    if (projectId) {
      try {
        const p = await getProject(db, ws, projectId);
        return { id: p.id, workspaceId: ws };
      } catch (err) {
        if (!(err instanceof AppError && err.code === "NOT_FOUND")) throw err;
      }
    } else {
      const p = await firstProject(db, ws);
      if (p) return p;
    }
  }
  throw notFound("project", projectId);
}

/** Feeds extracted actions into identity (leads) and events (revenue and custom events). */
async function apply(
  deps: ServiceDeps,
  project: ProjectRef,
  source: Source,
  actions: Action[],
): Promise<void> {
  for (const a of actions) {
    if (a.kind === "lead") {
      await upsertLeadByEmail(deps, project, {
        email: a.email,
        name: a.name,
        source,
        properties: a.properties,
      });
      continue;
    }
    let leadId: string | undefined;
    if (a.email) leadId = (await upsertLeadByEmail(deps, project, { email: a.email, source })).lead.id;
    await ingestServerEvents(deps, project, [
      {
        type: a.type,
        ...(leadId ? { leadId } : { visitorId: a.visitorId }),
        url: a.url,
        data: a.data,
        timestamp: a.timestamp,
      },
    ]);
  }
}

/**
 * Records a key (a platform event id, or an action's `once` key) for the workspace and source;
 * false when it was recorded before. Insert-or-nothing, so two concurrent deliveries cannot both win.
 */
async function claim(db: Db, workspaceId: string, source: Source, key: string): Promise<boolean> {
  const rows = await db
    .insertInto("webhook_incoming_events")
    .values({ workspace_id: workspaceId, source, external_id: key, received_at: new Date().toISOString() })
    .onConflict((oc) => oc.columns(["workspace_id", "source", "external_id"]).doNothing())
    .returning("external_id")
    .execute();
  return rows.length > 0;
}

export interface IncomingResult {
  received: true;
  duplicate: boolean;
  processed: number;
}

/**
 * Verifies, deduplicates and processes one incoming platform webhook. An event id is recorded
 * before processing so a concurrent replay is not processed twice; if processing fails the id is
 * released again, so the platform's own retry gets another chance.
 */
export async function handleIncoming(
  deps: ServiceDeps,
  source: string,
  req: IncomingRequest,
  projectId: string | undefined,
): Promise<IncomingResult> {
  const s = knownSource(source);
  const adapter = ADAPTERS[s];
  const check = adapter.signatureCheck(req);
  const workspaces = await verifyingWorkspaces(deps, s, check);
  if (workspaces.length === 0) throw new AppError("UNAUTHORIZED", "signature does not verify");
  const project = await resolveProject(deps.db, workspaces, projectId);
  const units = adapter.units(req);
  let processed = 0;
  let fresh = 0;
  for (const unit of units) {
    if (!(await claim(deps.db, project.workspaceId, s, unit.id))) continue;
    fresh++;
    const claimed = [unit.id];
    try {
      const actions: Action[] = [];
      for (const a of await adapter.extract(unit, { db: deps.db, project })) {
        if (a.kind === "event" && a.once) {
          if (!(await claim(deps.db, project.workspaceId, s, a.once))) continue;
          claimed.push(a.once);
        }
        actions.push(a);
      }
      await apply(deps, project, s, actions);
      processed += actions.length;
    } catch (err) {
      await deps.db
        .deleteFrom("webhook_incoming_events")
        .where("workspace_id", "=", project.workspaceId)
        .where("source", "=", s)
        .where("external_id", "in", claimed)
        .execute();
      throw err;
    }
  }
  return { received: true, duplicate: fresh === 0, processed };
}
