import { boundedCache } from "../../platform/cache.js";
import { newId } from "../../platform/crypto.js";
import type { Db, DbOrTrx } from "../../platform/db/index.js";
import { AppError, notFound } from "../../platform/errors.js";
import type { WorkspaceRef } from "../../platform/auth/principal.js";
import type { WorkspaceT } from "./schema.js";
import type { Tier, WorkspaceTable } from "./tables.js";
import "./tables.js";

export { changePassword, endSession, endSessionsOfMember, startSession } from "./sessions.js";
export { LIFT_MAILER, type LiftMailer } from "./lift-mailer.js";

const now = () => new Date().toISOString();
const normEmail = (e: string) => e.trim().toLowerCase();
const toWorkspace = (w: WorkspaceTable): WorkspaceT => ({ id: w.id, name: w.name, tier: w.tier });
export async function createWorkspace(db: DbOrTrx, name: string, tier: Tier = "free"): Promise<WorkspaceT> {
  const row: WorkspaceTable = { id: newId("ws"), name, tier, created_at: now() };
  await db.insertInto("workspaces").values(row).execute();
  return toWorkspace(row);
}

export async function getWorkspace(db: DbOrTrx, id: string): Promise<WorkspaceT> {
  const row = await db.selectFrom("workspaces").selectAll().where("id", "=", id).executeTakeFirst();
  if (!row) throw notFound("workspace", id);
  return toWorkspace(row);
}

/** The workspace of a project with its plan tier (for tiered limits). */
export async function getWorkspaceRef(db: DbOrTrx, workspaceId: string): Promise<WorkspaceRef> {
  const w = await getWorkspace(db, workspaceId);
  return { id: w.id, tier: w.tier };
}

/**
 * Renames a workspace. The plan tier sets how much a workspace may send and store, so it is the
 * operator's to change (`lift set-tier`, setWorkspaceTier), not a workspace admin's: a tier other
 * than the current one is 403.
 */
export async function updateWorkspace(
  db: DbOrTrx,
  id: string,
  patch: { name?: string; tier?: Tier },
): Promise<WorkspaceT> {
  const current = await getWorkspace(db, id);
  if (patch.tier !== undefined && patch.tier !== current.tier)
    throw new AppError(
      "FORBIDDEN",
      "the plan tier is set by the server's operator (lift set-tier), not in the workspace",
    );
  if (patch.name !== undefined)
    await db.updateTable("workspaces").set({ name: patch.name }).where("id", "=", id).execute();
  return getWorkspace(db, id);
}

/** The workspace of the user with this email (404 when none): how an operator names one. */
export async function findWorkspaceByAdminEmail(db: DbOrTrx, email: string): Promise<string> {
  const row = await db
    .selectFrom("users")
    .select("workspace_id")
    .where("email", "=", normEmail(email))
    .executeTakeFirst();
  if (!row) throw new AppError("NOT_FOUND", `no user with email ${normEmail(email)}`);
  return row.workspace_id;
}

/** The operator's change of a workspace's plan tier (`lift set-tier`). */
export async function setWorkspaceTier(db: DbOrTrx, id: string, tier: Tier): Promise<WorkspaceT> {
  const res = await db.updateTable("workspaces").set({ tier }).where("id", "=", id).executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) throw notFound("workspace", id);
  return getWorkspace(db, id);
}

export { authenticateUser, createUser, deleteUser, getUser, listUsers } from "./users.js";
export { createProject, firstProject, getProject, listProjects } from "./projects.js";
export { createProjectKey, deleteProjectKey, listProjectKeys } from "./project-keys.js";
export { createPrincipalResolver, type Principal } from "./principal-resolver.js";

import { TIER_SENDS_PER_MINUTE } from "./tiers.js";

export { TIER_SENDS_PER_MINUTE };

// A plan change takes effect within this delay; reading the tier on every send would add a query.
const TIER_TTL_MS = 5_000;

/** A workspace's sends per minute per key, from its plan tier (cached for a few seconds). */
export function sendsPerMinute(db: Db): (workspaceId: string | null) => Promise<number> {
  const tiers = boundedCache<string, Tier>(10_000, TIER_TTL_MS);
  return async (workspaceId) => {
    // Before its key is known, a request is held to the smallest plan's limit.
    if (workspaceId === null) return TIER_SENDS_PER_MINUTE.free;
    let tier = tiers.get(workspaceId);
    if (!tier) {
      tier = (await getWorkspaceRef(db, workspaceId)).tier;
      tiers.set(workspaceId, tier);
    }
    return TIER_SENDS_PER_MINUTE[tier];
  };
}
