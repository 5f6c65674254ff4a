import { type Kysely, sql } from "kysely";
import type { Dialect } from "../index.js";

/**
 * SQLite: each visitor's latest merged event time, one row per visitor, kept by the index's merges
 * (visitor-index.ts). A session decision for a visitor outside the writer's cache reads it instead
 * of probing every bucket of `event_visitor_index`, whose number grows with the store.
 * PostgreSQL keeps its plain index (one probe already).
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect !== "sqlite") return;
  await sql`create table event_visitor_last (
    project_id text not null, visitor_id text not null, ts bigint not null,
    primary key (project_id, visitor_id)) without rowid`.execute(db);
  await sql`insert into event_visitor_last (project_id, visitor_id, ts)
    select project_id, visitor_id, max(ts) from event_visitor_index
    where bucket in (select n from event_index_buckets) group by project_id, visitor_id`.execute(db);
}
