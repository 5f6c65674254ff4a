import { creationTime } from "../../platform/creation-time.js";
import { sql } from "kysely";
import type { DbOrTrx, Trx } from "../../platform/db/index.js";
import { newId } from "../../platform/crypto.js";
import type { ActorT, FlagT, HistoryEntryT, RuleT } from "./schema.js";
import type { FlagHistoryTable, FlagTable } from "./tables.js";
import "./tables.js";

/** Rows of the flags tables and the records the API shows. */

export function toFlag(r: FlagTable): FlagT {
  return {
    id: r.id,
    key: r.key,
    description: r.description,
    valueType: r.value_type,
    defaultValue: JSON.parse(r.default_value),
    enabled: r.enabled === 1,
    rules: JSON.parse(r.rules) as RuleT[],
    tags: JSON.parse(r.tags) as string[],
    hashing: r.hashing === "posthog" ? "posthog" : "growthbook",
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function toRow(f: FlagT, project: { id: string; workspaceId: string }): FlagTable {
  return {
    id: f.id,
    workspace_id: project.workspaceId,
    project_id: project.id,
    key: f.key,
    description: f.description,
    value_type: f.valueType,
    default_value: JSON.stringify(f.defaultValue),
    enabled: f.enabled ? 1 : 0,
    rules: JSON.stringify(f.rules),
    tags: JSON.stringify(f.tags),
    hashing: f.hashing,
    created_at: f.createdAt,
    updated_at: f.updatedAt,
  };
}

export async function findFlagRow(
  db: DbOrTrx,
  projectId: string,
  key: string,
): Promise<FlagTable | undefined> {
  return db
    .selectFrom("flags")
    .selectAll()
    .where("project_id", "=", projectId)
    .where("key", "=", key)
    .executeTakeFirst();
}

/** The project's flags, newest first. */
export async function listFlagRows(db: DbOrTrx, projectId: string): Promise<FlagTable[]> {
  return db
    .selectFrom("flags")
    .selectAll()
    .where("project_id", "=", projectId)
    .orderBy("created_at", "desc")
    .orderBy("id", "desc")
    .execute();
}

export async function countFlags(db: DbOrTrx, projectId: string): Promise<number> {
  const row = await db
    .selectFrom("flags")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("project_id", "=", projectId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface Revision {
  revision: number;
  revisedAt: string;
  remoteEvalOnly: boolean;
}

/**
 * Starts a flag change: bumps the project's revision first in the transaction, which also takes
 * the row's lock on PostgreSQL (a project's flag changes run one at a time, so a history entry's
 * "before" is what the change replaced). `revised_at` only grows, by at least 1 ms per change.
 */
export async function bumpRevision(trx: Trx, projectId: string): Promise<Revision> {
  const now = creationTime();
  const prev = await trx
    .insertInto("flag_settings")
    .values({ project_id: projectId, remote_eval_only: 0, revision: 1, revised_at: now })
    .onConflict((oc) => oc.column("project_id").doUpdateSet({ revision: sql`flag_settings.revision + 1` }))
    .returning(["revision", "revised_at", "remote_eval_only"])
    .executeTakeFirstOrThrow();
  const revisedAt = new Date(Math.max(Date.parse(now), Date.parse(prev.revised_at) + 1)).toISOString();
  await trx
    .updateTable("flag_settings")
    .set({ revised_at: revisedAt })
    .where("project_id", "=", projectId)
    .execute();
  return { revision: Number(prev.revision), revisedAt, remoteEvalOnly: prev.remote_eval_only === 1 };
}

/** The project's revision (zero and the epoch before its first flag change). */
export async function readRevision(db: DbOrTrx, projectId: string): Promise<Revision> {
  const row = await db
    .selectFrom("flag_settings")
    .select(["revision", "revised_at", "remote_eval_only"])
    .where("project_id", "=", projectId)
    .executeTakeFirst();
  if (!row) return { revision: 0, revisedAt: new Date(0).toISOString(), remoteEvalOnly: false };
  return {
    revision: Number(row.revision),
    revisedAt: row.revised_at,
    remoteEvalOnly: row.remote_eval_only === 1,
  };
}

export async function writeHistory(
  trx: Trx,
  projectId: string,
  entry: Omit<HistoryEntryT, "id"> & { flagId: string; flagKey: string },
): Promise<HistoryEntryT> {
  const row: FlagHistoryTable = {
    id: newId("fhist"),
    project_id: projectId,
    flag_id: entry.flagId,
    flag_key: entry.flagKey,
    action: entry.action,
    actor: JSON.stringify(entry.actor),
    at: entry.at,
    before: entry.before ? JSON.stringify(entry.before) : null,
    after: entry.after ? JSON.stringify(entry.after) : null,
  };
  await trx.insertInto("flag_history").values(row).execute();
  return toHistory(row);
}

/** A flag as history kept it: entries written before flags had `hashing` were GrowthBook's. */
function historyFlag(json: string | null): FlagT | null {
  if (!json) return null;
  const flag = JSON.parse(json) as FlagT;
  return { ...flag, hashing: flag.hashing ?? "growthbook" };
}

function toHistory(r: FlagHistoryTable): HistoryEntryT {
  return {
    id: r.id,
    action: r.action,
    actor: JSON.parse(r.actor) as ActorT,
    at: r.at,
    before: historyFlag(r.before),
    after: historyFlag(r.after),
  };
}

/** A key's history in this project, newest first (flags deleted under the key included). */
export async function readHistory(db: DbOrTrx, projectId: string, key: string): Promise<HistoryEntryT[]> {
  const rows = await db
    .selectFrom("flag_history")
    .selectAll()
    .where("project_id", "=", projectId)
    .where("flag_key", "=", key)
    .orderBy("at", "desc")
    .orderBy("id", "desc")
    .execute();
  return rows.map(toHistory);
}
