import { type Kysely, sql } from "kysely";
import type { Dialect } from "../index.js";

/**
 * Segment's `messageId`s of the last 24 hours per project (src/modules/event-store/claims/dedup.ts),
 * written in the events' own group-commit transaction, so a message is stored with its key or not
 * at all. Each database keeps them as it looks them up:
 * - PostgreSQL, `segment_message_ids`: a row per message; the primary key `(project_id, message_id)`
 *   is the lookup and decides between processes (an insert waits for another transaction holding
 *   the same key). `received_at`, for the hourly expiry, has a BRIN index: rows arrive in about
 *   that order, and a B-tree there was one more index entry to write per message.
 * - SQLite, `segment_message_log`: one process owns the file and its memory holds the keys of the
 *   last 24 hours; this is their log, read once at start: a row per request, its claimed ids as a
 *   JSON array, appended. A `(project_id, message_id)` key put each insert at a random page, and a
 *   row per message keyed by time still cost more than a row per request
 *   (docs/decisions/performance.md).
 * `lift migrate-to-postgres` carries the log's keys into `segment_message_ids`
 * (migrate-to-postgres/message-ids.ts), so a retry of a message sent before the move is still one.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect === "postgres") {
    await sql`create table segment_message_ids (
      project_id text not null, message_id text not null, received_at bigint not null,
      primary key (project_id, message_id))`.execute(db);
    await sql`create index segment_message_ids_received on segment_message_ids using brin (received_at)`.execute(
      db,
    );
    return;
  }
  await sql`create table segment_message_log (
    received_at bigint not null, project_id text not null, message_ids text not null)`.execute(db);
  await sql`create index segment_message_log_received on segment_message_log (received_at)`.execute(db);
}
