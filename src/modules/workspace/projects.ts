import { creationTime } from "../../platform/creation-time.js";
import { KEY_PREFIX } from "../../platform/auth/keys.js";
import type { ProjectRef } from "../../platform/auth/principal.js";
import { newId, randomBase62 } from "../../platform/crypto.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import { notFound } from "../../platform/errors.js";
import type { ProjectT } from "./schema.js";
import type { ProjectTable } from "./tables.js";

const toProject = (p: ProjectTable): ProjectT => ({
  id: p.id,
  name: p.name,
  publicKey: p.public_key,
  createdAt: p.created_at,
});

export async function createProject(db: DbOrTrx, workspaceId: string, name: string): Promise<ProjectT> {
  const row: ProjectTable = {
    id: newId("prj"),
    workspace_id: workspaceId,
    name,
    public_key: `${KEY_PREFIX.public}${randomBase62(16)}`,
    created_at: creationTime(),
  };
  await db.insertInto("projects").values(row).execute();
  return toProject(row);
}

export async function listProjects(db: DbOrTrx, workspaceId: string): Promise<ProjectT[]> {
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
