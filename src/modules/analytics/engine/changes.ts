import type { DbOrTrx, Trx } from "../../../platform/db/index.js";
import { newId } from "../../../platform/crypto.js";
import { NoPayload, jobKind } from "../../../platform/jobs/index.js";
import type { EngineChangeTable } from "../tables.js";
import "../tables.js";

/**
 * Changes to rows every process's engine has already copied, written in the transaction that makes
 * them (so an engine sees the change no earlier than its rows): see `EngineChangeTable`.
 */
export type EngineChange =
  | { kind: "erase"; subject: { visitors: string[]; lead?: string } }
  | { kind: "recount"; subject: { events: string[] } }
  | { kind: "goal-dropped"; subject: { goal: string } };

export async function logEngineChange(trx: Trx, projectId: string, change: EngineChange): Promise<void> {
  await trx
    .insertInto("analytics_engine_changes")
    .values({
      id: newId("chg"),
      project_id: projectId,
      kind: change.kind,
      subject: JSON.stringify(change.subject),
      at: Date.now(),
    })
    .execute();
}

/** Changes kept this long: every engine has applied them well before (it syncs every second). */
export const CHANGES_KEPT_MS = 86_400_000;

export const ENGINE_CHANGES_EXPIRY_JOB = jobKind("analytics.engine-changes-expiry", NoPayload);

/** Deletes changes past `CHANGES_KEPT_MS`: erased ids outlive their erasure by a day at most. */
export async function expireEngineChanges(db: DbOrTrx, now = Date.now()): Promise<number> {
  const gone = await db
    .deleteFrom("analytics_engine_changes")
    .where("at", "<", now - CHANGES_KEPT_MS)
    .executeTakeFirst();
  return Number(gone.numDeletedRows);
}

export type StoredChange = Pick<EngineChangeTable, "id" | "project_id" | "kind" | "subject" | "at">;

/** Changes logged at or after `from`, oldest first. */
export async function changesSince(db: DbOrTrx, from: number): Promise<StoredChange[]> {
  return db
    .selectFrom("analytics_engine_changes")
    .select(["id", "project_id", "kind", "subject", "at"])
    .where("at", ">=", from)
    .orderBy("at")
    .orderBy("id")
    .execute();
}
