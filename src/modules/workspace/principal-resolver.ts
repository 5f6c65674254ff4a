import { projectKeyKind } from "../../platform/auth/keys.js";
import type { Principal, PrincipalResolver, ProjectRef } from "../../platform/auth/principal.js";
import { firstProject } from "./projects.js";
import { boundedCache } from "../../platform/cache.js";
import { sha256Hex } from "../../platform/crypto.js";
import type { Db } from "../../platform/db/index.js";
import { sessionChecker } from "./sessions.js";

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
    if (projectKeyKind(publicKey) === "secret") {
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
        keyKind: "secret",
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
            keyKind: "session",
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
