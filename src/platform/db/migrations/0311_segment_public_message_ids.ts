import { type Kysely, sql } from "kysely";
import type { Dialect } from "../index.js";

/**
 * Segment's messageIds in two namespaces, by the kind of write key that sent them
 * (src/modules/event-store/claims/dedup.ts): the public key is in every page, so a messageId it claims
 * must never suppress a server's (secret key's) message with the same id, such as a predictable
 * order id.
 * - PostgreSQL: the public key's claims get a table of their own, `segment_public_message_ids`,
 *   shaped as `segment_message_ids` (which keeps the secret keys' claims as before): no rewrite of
 *   the existing table or its primary key, and each claim is still decided by a primary key.
 * - SQLite: the log's rows say which namespace their ids were claimed in (`from_public`; rows
 *   logged before this migration were claimed by either key and are read as the secret key's).
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect === "postgres") {
    await sql`create table segment_public_message_ids (
      project_id text not null, message_id text not null, received_at bigint not null,
      primary key (project_id, message_id))`.execute(db);
    await sql`create index segment_public_message_ids_received on segment_public_message_ids
      using brin (received_at)`.execute(db);
    return;
  }
  await sql`alter table segment_message_log add column from_public integer not null default 0`.execute(db);
}
