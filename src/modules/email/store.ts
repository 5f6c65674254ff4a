import type { DbHandle, Trx } from "../../platform/db/index.js";
import { preparedOn } from "../../platform/db/statements.js";
import type { CommunicationTable, TxSendEventTable, TxSendTable } from "./tables.js";
import "./tables.js";

/** What the send path reads of a transactional key. */
export interface TxKeyRow {
  id: string;
  workspace_id: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

/**
 * The key row of a key's hash. On SQLite a cached prepared statement (the hot path of every
 * send); on PostgreSQL it goes through Kysely.
 */
export function txKeyFinder(handle: DbHandle): (hash: string) => Promise<TxKeyRow | undefined> {
  const { db, sqlite } = handle;
  const select = sqlite?.prepare(
    "SELECT id, workspace_id, revoked_at, last_used_at FROM tx_keys WHERE key_hash = ?",
  );
  return async (hash) =>
    select
      ? (select.get(hash) as TxKeyRow | undefined)
      : db
          .selectFrom("tx_keys")
          .select(["id", "workspace_id", "revoked_at", "last_used_at"])
          .where("key_hash", "=", hash)
          .executeTakeFirst();
}

const SEND_COLUMNS = [
  "id",
  "workspace_id",
  "key_id",
  "to_addr",
  "subject",
  "comm_id",
  "tags",
  "sandbox",
  "status",
  "message_id",
  "error",
  "idempotency_key",
  "pending_message",
  "attempts",
  "created_at",
  "updated_at",
] as const satisfies ReadonlyArray<keyof TxSendTable>;

/** A new timeline row of a send. */
export type NewSendEvent = Omit<TxSendEventTable, "id">;

/**
 * Inserts new send records and their first timeline rows in the caller's transaction. On SQLite
 * cached prepared statements run inside the Kysely transaction (the same connection), one row at
 * a time without Kysely's per-statement compile cost; on PostgreSQL one multi-row insert per table.
 */
export function sendLogInserter(
  handle: DbHandle,
): (trx: Trx, sends: readonly TxSendTable[], events: readonly NewSendEvent[]) => Promise<void> {
  const s = handle.sqlite;
  if (s) {
    const send = s.prepare(
      `INSERT INTO tx_sends (${SEND_COLUMNS.join(",")}) VALUES (${SEND_COLUMNS.map(() => "?").join(",")})`,
    );
    const event = s.prepare("INSERT INTO tx_send_events (send_id, type, at, detail) VALUES (?, ?, ?, ?)");
    return async (_trx, sends, events) => {
      for (const row of sends) send.run(SEND_COLUMNS.map((c) => row[c]));
      for (const e of events) event.run(e.send_id, e.type, e.at, e.detail);
    };
  }
  return async (trx, sends, events) => {
    await trx
      .insertInto("tx_sends")
      .values([...sends])
      .execute();
    if (events.length)
      await trx
        .insertInto("tx_send_events")
        .values([...events])
        .execute();
  };
}

/**
 * A workspace's own version of a communication (type and version only), for every send: through a
 * cached prepared statement on SQLite.
 */
export async function findCommunicationOverride(
  handle: DbHandle,
  workspaceId: string,
  id: string,
): Promise<Pick<CommunicationTable, "comm_type" | "updated_at"> | undefined> {
  const { sqlite } = handle;
  if (sqlite) {
    const st = preparedOn(
      sqlite,
      "SELECT comm_type, updated_at FROM communications WHERE workspace_id = ? AND id = ?",
    );
    return st.get(workspaceId, id) as Pick<CommunicationTable, "comm_type" | "updated_at"> | undefined;
  }
  return handle.db
    .selectFrom("communications")
    .select(["comm_type", "updated_at"])
    .where("workspace_id", "=", workspaceId)
    .where("id", "=", id)
    .executeTakeFirst();
}
