import { hashPassword, newId, randomBase62, sha256Hex, verifyPassword } from "../../platform/crypto.js";
import { type Db, type DbOrTrx, isUniqueViolation } from "../../platform/db/index.js";
import { AppError, notFound } from "../../platform/errors.js";
import type {
  Principal,
  PrincipalResolver,
  ProjectRef,
  WorkspaceRef,
} from "../../platform/auth/principal.js";
import type { CreatedProjectKeyT, ProjectKeyT, ProjectT, UserT, WorkspaceT } from "./schema.js";
import type { ProjectKeyTable, ProjectTable, Role, Tier, UserTable, WorkspaceTable } from "./tables.js";
import "./tables.js";
import { boundedCache } from "../../platform/cache.js";
import { sessionChecker } from "./sessions.js";

export { changePassword, endSession, endSessionsOfMember, startSession } from "./sessions.js";
export { type LiftMailer, provideLiftMailer } from "./lift-mailer.js";

const now = () => new Date().toISOString();
const normEmail = (e: string) => e.trim().toLowerCase();
/** Prefix of a project's secret API keys (the spec's project key format). */
const API_KEY_PREFIX = "svc_key_";

const toWorkspace = (w: WorkspaceTable): WorkspaceT => ({ id: w.id, name: w.name, tier: w.tier });
const toUser = (u: UserTable): UserT => ({
  id: u.id,
  email: u.email,
  role: u.role,
  workspaceId: u.workspace_id,
  createdAt: u.created_at,
});
const toProject = (p: ProjectTable): ProjectT => ({
  id: p.id,
  name: p.name,
  publicKey: p.public_key,
  createdAt: p.created_at,
});
const toKey = (k: ProjectKeyTable): ProjectKeyT => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  createdAt: k.created_at,
  lastUsedAt: k.last_used_at,
});

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
  db: Db,
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
export async function findWorkspaceByAdminEmail(db: Db, email: string): Promise<string> {
  const row = await db
    .selectFrom("users")
    .select("workspace_id")
    .where("email", "=", normEmail(email))
    .executeTakeFirst();
  if (!row) throw new AppError("NOT_FOUND", `no user with email ${normEmail(email)}`);
  return row.workspace_id;
}

/** The operator's change of a workspace's plan tier (`lift set-tier`). */
export async function setWorkspaceTier(db: Db, id: string, tier: Tier): Promise<WorkspaceT> {
  const res = await db.updateTable("workspaces").set({ tier }).where("id", "=", id).executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) throw notFound("workspace", id);
  return getWorkspace(db, id);
}

export async function createUser(
  db: DbOrTrx,
  workspaceId: string,
  input: { email: string; role: Role; password: string },
): Promise<UserT> {
  const email = normEmail(input.email);
  const taken = await db.selectFrom("users").select("id").where("email", "=", email).executeTakeFirst();
  if (taken) throw new AppError("CONFLICT", `a user with email ${email} already exists`);
  const row: UserTable = {
    id: newId("usr"),
    workspace_id: workspaceId,
    email,
    role: input.role,
    password_hash: await hashPassword(input.password),
    created_at: now(),
  };
  await db
    .insertInto("users")
    .values(row)
    .execute()
    .catch((err: unknown) => {
      // the check above passed for two requests at once; the unique index picked one
      if (isUniqueViolation(err)) throw new AppError("CONFLICT", `a user with email ${email} already exists`);
      throw err;
    });
  return toUser(row);
}

export async function listUsers(db: Db, workspaceId: string): Promise<UserT[]> {
  const rows = await db
    .selectFrom("users")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
  return rows.map(toUser);
}

export async function deleteUser(db: Db, workspaceId: string, userId: string, actingUserId: string) {
  if (userId === actingUserId) throw new AppError("CONFLICT", "you cannot delete your own user");
  const res = await db
    .deleteFrom("users")
    .where("id", "=", userId)
    .where("workspace_id", "=", workspaceId)
    .executeTakeFirst();
  if (Number(res.numDeletedRows) === 0) throw notFound("user", userId);
  return { id: userId, deleted: true };
}

/** Checks email and password; the same error for an unknown email and a wrong password. */
export async function authenticateUser(db: Db, email: string, password: string): Promise<UserT> {
  const row = await db
    .selectFrom("users")
    .selectAll()
    .where("email", "=", normEmail(email))
    .executeTakeFirst();
  // Verify against a dummy hash when the user is unknown so timing does not reveal which emails exist.
  const ok = await verifyPassword(password, row?.password_hash ?? DUMMY_HASH);
  if (!row || !ok) throw new AppError("UNAUTHORIZED", "invalid email or password");
  return toUser(row);
}
const DUMMY_HASH =
  "scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==";

export async function getUser(db: Db, userId: string): Promise<UserT> {
  const row = await db.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirst();
  if (!row) throw notFound("user", userId);
  return toUser(row);
}

export async function createProject(db: DbOrTrx, workspaceId: string, name: string): Promise<ProjectT> {
  const row: ProjectTable = {
    id: newId("prj"),
    workspace_id: workspaceId,
    name,
    public_key: `svc_pk_${randomBase62(16)}`,
    created_at: now(),
  };
  await db.insertInto("projects").values(row).execute();
  return toProject(row);
}

export async function listProjects(db: Db, workspaceId: string): Promise<ProjectT[]> {
  const rows = await db
    .selectFrom("projects")
    .selectAll()
    .where("workspace_id", "=", workspaceId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
  return rows.map(toProject);
}

/** A project of the workspace, or 404 (also for another workspace's project, so ids do not leak). */
export async function getProject(db: DbOrTrx, workspaceId: string, projectId: string): Promise<ProjectT> {
  const row = await db
    .selectFrom("projects")
    .selectAll()
    .where("id", "=", projectId)
    .where("workspace_id", "=", workspaceId)
    .executeTakeFirst();
  if (!row) throw notFound("project", projectId);
  return toProject(row);
}

/** The first (oldest) project of a workspace: where a session acts and unscoped incoming data lands. */
export async function firstProject(db: DbOrTrx, workspaceId: string): Promise<ProjectRef | null> {
  const row = await db
    .selectFrom("projects")
    .select(["id", "workspace_id"])
    .where("workspace_id", "=", workspaceId)
    .orderBy("created_at", "asc")
    .orderBy("id", "asc")
    .executeTakeFirst();
  return row ? { id: row.id, workspaceId: row.workspace_id } : null;
}

export async function createProjectKey(
  db: DbOrTrx,
  workspaceId: string,
  projectId: string,
  name: string,
): Promise<CreatedProjectKeyT> {
  await getProject(db, workspaceId, projectId);
  const rawKey = `${API_KEY_PREFIX}${randomBase62(32)}`;
  const row: ProjectKeyTable = {
    id: newId("key"),
    project_id: projectId,
    name,
    prefix: rawKey.slice(0, 12),
    key_hash: sha256Hex(rawKey),
    created_at: now(),
    last_used_at: null,
  };
  await db.insertInto("project_keys").values(row).execute();
  return { id: row.id, name, prefix: row.prefix, rawKey, createdAt: row.created_at };
}

export async function listProjectKeys(
  db: Db,
  workspaceId: string,
  projectId: string,
): Promise<ProjectKeyT[]> {
  await getProject(db, workspaceId, projectId);
  const rows = await db
    .selectFrom("project_keys")
    .selectAll()
    .where("project_id", "=", projectId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
  return rows.map(toKey);
}

export async function deleteProjectKey(db: Db, workspaceId: string, projectId: string, keyId: string) {
  await getProject(db, workspaceId, projectId);
  const res = await db
    .deleteFrom("project_keys")
    .where("id", "=", keyId)
    .where("project_id", "=", projectId)
    .executeTakeFirst();
  if (Number(res.numDeletedRows) === 0) throw notFound("key", keyId);
  return { id: keyId, deleted: true };
}

/** The lookups authentication needs, over this module's tables. */
const KNOWN_KEY_TTL_MS = 60_000;
const UNKNOWN_KEY_TTL_MS = 5_000;

export function createPrincipalResolver(db: Db): PrincipalResolver {
  // last_used_at is written at most once a minute per key, so reads do not turn into writes.
  const recentlyTouched = boundedCache<string, true>(10_000, 60_000);
  // The public endpoints (every page view) resolve their key here: known keys are remembered a
  // minute (a deleted key is forgotten at once on this process, within that minute on others),
  // unknown keys a few seconds, so a flood of bad keys does not reach the database.
  const publicKeys = boundedCache<string, { project: ProjectRef | null }>(10_000);
  const lookupPublicKey = async (publicKey: string): Promise<ProjectRef | null> => {
    // The spec names only `svc_key_…` as the project key: server-side callers of the public
    // endpoints use it, web pages the public `svc_pk_…` (DESIGN.md, Tenancy).
    if (publicKey.startsWith(API_KEY_PREFIX)) {
      const key = await resolver.resolveApiKey(publicKey);
      return key ? { id: key.projectId, workspaceId: key.workspaceId } : null;
    }
    const p = await db
      .selectFrom("projects")
      .select(["id", "workspace_id"])
      .where("public_key", "=", publicKey)
      .executeTakeFirst();
    return p ? { id: p.id, workspaceId: p.workspace_id } : null;
  };
  const liveSessionUser = sessionChecker(db);
  const resolver: PrincipalResolver = {
    async resolveApiKey(rawKey) {
      const row = await db
        .selectFrom("project_keys")
        .innerJoin("projects", "projects.id", "project_keys.project_id")
        .select([
          "project_keys.id as keyId",
          "projects.id as projectId",
          "projects.workspace_id as workspaceId",
        ])
        .where("project_keys.key_hash", "=", sha256Hex(rawKey))
        .executeTakeFirst();
      if (!row) return null;
      const t = Date.now();
      if (!recentlyTouched.has(row.keyId)) {
        recentlyTouched.set(row.keyId, true);
        await db
          .updateTable("project_keys")
          .set({ last_used_at: new Date(t).toISOString() })
          .where("id", "=", row.keyId)
          .execute();
      }
      return {
        kind: "apiKey",
        keyId: row.keyId,
        projectId: row.projectId,
        workspaceId: row.workspaceId,
        project: { id: row.projectId, workspaceId: row.workspaceId },
      };
    },
    async resolveSession(claims) {
      const u = await liveSessionUser(claims);
      return u
        ? {
            kind: "session",
            userId: u.id,
            sessionId: claims.sessionId,
            workspaceId: u.workspace_id,
            role: u.role,
            email: u.email,
            project: null,
          }
        : null;
    },
    async resolveSessionProject(workspaceId, projectId) {
      if (projectId) {
        const p = await db
          .selectFrom("projects")
          .select(["id", "workspace_id"])
          .where("id", "=", projectId)
          .where("workspace_id", "=", workspaceId)
          .executeTakeFirst();
        return p ? { id: p.id, workspaceId: p.workspace_id } : null;
      }
      return firstProject(db, workspaceId);
    },
    async resolvePublicKey(publicKey) {
      const hit = publicKeys.get(publicKey);
      if (hit) return hit.project;
      const project = await lookupPublicKey(publicKey);
      publicKeys.set(publicKey, { project }, { ttl: project ? KNOWN_KEY_TTL_MS : UNKNOWN_KEY_TTL_MS });
      return project;
    },
    forgetKeys() {
      publicKeys.clear();
    },
  };
  return resolver;
}

export type { Principal };
