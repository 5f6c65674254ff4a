import { KEY_PREFIX } from "../../platform/auth/keys.js";
import { creationTime } from "../../platform/creation-time.js";
import { newId, randomBase62, sha256Hex } from "../../platform/crypto.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import { getProject } from "./projects.js";
import { notFound } from "../../platform/errors.js";
import type { CreatedProjectKeyT, ProjectKeyT } from "./schema.js";
import type { ProjectKeyTable } from "./tables.js";

const toKey = (k: ProjectKeyTable): ProjectKeyT => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  createdAt: k.created_at,
  lastUsedAt: k.last_used_at,
});

export async function createProjectKey(
  db: DbOrTrx,
  workspaceId: string,
  projectId: string,
  name: string,
): Promise<CreatedProjectKeyT> {
  await getProject(db, workspaceId, projectId);
  const rawKey = `${KEY_PREFIX.secret}${randomBase62(32)}`;
  const row: ProjectKeyTable = {
    id: newId("key"),
    project_id: projectId,
    name,
    prefix: rawKey.slice(0, 12),
    key_hash: sha256Hex(rawKey),
    created_at: creationTime(),
    last_used_at: null,
  };
  await db.insertInto("project_keys").values(row).execute();
  return { id: row.id, name, prefix: row.prefix, rawKey, createdAt: row.created_at };
}

export async function listProjectKeys(
  db: DbOrTrx,
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

export async function deleteProjectKey(db: DbOrTrx, workspaceId: string, projectId: string, keyId: string) {
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
