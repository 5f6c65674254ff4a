import { type Kysely, sql } from "kysely";
import type { Dialect } from "../index.js";

/**
 * `events_project_ts` was never read: dropped on both databases.
 *
 * SQLite: the `(project_id, visitor_id, ts)` index on `events` put every insert at a random place
 * (one per active visitor), so each group commit dirtied about one index page per event and the
 * WAL checkpoint wrote them all back, at a cost per row that grew with the table. It is
 * replaced by two tables (docs/decisions/performance.md):
 * - `event_visitor_recent`: entries of events not merged yet, written in each commit; small, so the
 *   pages a commit dirties stay few and cached;
 * - `event_visitor_index`: merged entries, appended in bulk in key order, in buckets of a bounded
 *   number of merges so a merge rewrites only the current bucket's pages.
 * PostgreSQL keeps the plain index.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema.dropIndex("events_project_ts").execute();
  if (dialect !== "sqlite") return;
  // Rebuilt with an integer key: rows append by `seq`, the index tables point at it (8 bytes
  // instead of the text id), and the id's own unique index goes (ids are unique by construction:
  // time, sequence and 48 random bits).
  await sql`create table events_by_seq (
    seq integer primary key, id text not null, project_id text not null, visitor_id text not null,
    lead_id text, type text not null, url text not null, referrer text, data text not null,
    ts bigint not null, received_at bigint not null, session_id text not null, channel text not null,
    source text, is_bot integer not null)`.execute(db);
  await sql`insert into events_by_seq (id, project_id, visitor_id, lead_id, type, url, referrer, data, ts,
    received_at, session_id, channel, source, is_bot)
    select id, project_id, visitor_id, lead_id, type, url, referrer, data, ts, received_at, session_id,
    channel, source, is_bot from events order by rowid`.execute(db);
  await sql`drop table events`.execute(db);
  await sql`alter table events_by_seq rename to events`.execute(db);

  await sql`create table event_visitor_recent (
    project_id text not null, visitor_id text not null, ts bigint not null, seq integer not null,
    primary key (project_id, visitor_id, ts, seq)) without rowid`.execute(db);
  await sql`create table event_visitor_index (
    project_id text not null, bucket integer not null, visitor_id text not null, ts bigint not null,
    seq integer not null, primary key (project_id, bucket, visitor_id, ts, seq)) without rowid`.execute(db);
  // `bucket` is where the next merge goes; the view lists every bucket, for `bucket in (...)` seeks.
  await sql`create table event_index_state (merges integer not null, bucket integer not null)`.execute(db);
  await sql`insert into event_index_state (merges, bucket) values (0, 1)`.execute(db);
  await sql`create view event_index_buckets as with recursive b(n) as (select 0 union all
    select n + 1 from b where n < (select bucket from event_index_state)) select n from b`.execute(db);
  // Existing events become bucket 0 (new merges start at bucket 1).
  await sql`insert into event_visitor_index (project_id, bucket, visitor_id, ts, seq)
    select project_id, 0, visitor_id, ts, seq from events order by project_id, visitor_id, ts, seq`.execute(
    db,
  );
}
