import { withTransaction, enterExclusive, type Trx, type DbOrTrx } from "../../platform/db/index.js";
import { randomBase62 } from "../../platform/crypto.js";
import type { Tier } from "./tables.js";
import { createProject, createProjectKey, createUser, createWorkspace } from "./service.js";
import type { CreatedProjectKeyT, ProjectT, UserT, WorkspaceT } from "./schema.js";

export interface Provisioned {
  workspace: WorkspaceT;
  admin: UserT;
  password: string;
  project: ProjectT;
  key: CreatedProjectKeyT;
}

/** A new workspace with an admin, a first project and a project API key, in one transaction. */
export async function provisionWorkspace(
  db: DbOrTrx,
  input: { name: string; email: string; password?: string; tier?: Tier },
): Promise<Provisioned> {
  return withTransaction(db, (trx) => provisionIn(trx, input));
}

async function provisionIn(
  trx: Trx,
  input: { name: string; email: string; password?: string; tier?: Tier },
): Promise<Provisioned> {
  const password = input.password ?? randomBase62(18);
  const workspace = await createWorkspace(trx, input.name, input.tier ?? "free");
  const admin = await createUser(trx, workspace.id, { email: input.email, role: "admin", password });
  const project = await createProject(trx, workspace.id, "Default project");
  const key = await createProjectKey(trx, workspace.id, project.id, "Default key");
  return { workspace, admin, password, project, key };
}

/**
 * On an empty database, creates the first workspace and returns its credentials (to print once).
 * Processes starting together on one database (replicas of a deploy) take turns: the check and the
 * create run in one critical section, so exactly one of them creates and the others see it.
 */
export async function bootstrapIfEmpty(
  db: DbOrTrx,
  opts: { adminEmail?: string; adminPassword?: string },
): Promise<Provisioned | null> {
  const any = await db.selectFrom("workspaces").select("id").limit(1).executeTakeFirst();
  if (any) return null;
  return withTransaction(db, async (trx) => {
    await enterExclusive(trx, "bootstrap");
    const created = await trx.selectFrom("workspaces").select("id").limit(1).executeTakeFirst();
    if (created) return null;
    return provisionIn(trx, {
      name: "My workspace",
      email: opts.adminEmail ?? "admin@localhost.localdomain",
      password: opts.adminPassword,
    });
  });
}
