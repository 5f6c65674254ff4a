import { type Kysely, sql } from "kysely";
import type { Dialect } from "../index.js";

/**
 * Segment's `messageId`s of the last 24 hours per project (src/modules/events/segment/dedup.ts),
 * written in the events' own group-commit transaction, so a message is stored with its key or not
 * at all. Same columns on both databases (`lift migrate-to-postgres` copies the rows), keyed for
 * how each one looks a key up:
 * - PostgreSQL: the primary key `(project_id, message_id)` is the lookup, and decides between
 *   processes (an insert waits for another transaction holding the same key); `received_at` is
 *   indexed for the hourly expiry.
 * - SQLite: one process, whose memory holds the keys of the last 24 hours; the table is their log,
 *   read once at start. Keyed by `received_at` first, so every insert appends at the B-tree's right
 *   edge and the expiry deletes from its left edge. A `(project_id, message_id)` key put each
 *   insert at a random page: measured 60–110 µs per key at 0.2–1M keys (2 MB page cache), more
 *   than a whole event costs.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect === "postgres") {
    await sql`create table segment_message_ids (
      project_id text not null, message_id text not null, received_at bigint not null,
      primary key (project_id, message_id))`.execute(db);
    await sql`create index segment_message_ids_received on segment_message_ids (received_at)`.execute(db);
    return;
  }
  await sql`create table segment_message_ids (
    received_at bigint not null, project_id text not null, message_id text not null,
    primary key (received_at, project_id, message_id)) without rowid`.execute(db);
}
