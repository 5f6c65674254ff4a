import { type Kysely, sql } from "kysely";
import type { Dialect } from "../index.js";

/**
 * SQLite: the newest events' per-visitor entries move from the `event_visitor_recent` table into
 * the events writer's memory (the "tail", rebuilt from `events` after `merged_seq` on start; see
 * visitor-index.ts and docs/decisions/performance.md). Inserting each event's entry at a random place in
 * that table and writing its pages at every commit cost more than the event row itself.
 * Each merge now writes a bucket of its own: `bucket` is the next one, not yet visible, and the
 * view lists the buckets below it. What waits in the recent table is merged into the current
 * bucket first, which then becomes visible like the older ones.
 * PostgreSQL keeps its plain index.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect !== "sqlite") return;
  await sql`insert into event_visitor_index (project_id, bucket, visitor_id, ts, seq)
    select project_id, (select bucket from event_index_state), visitor_id, ts, seq from event_visitor_recent
    order by project_id, visitor_id, ts, seq`.execute(db);
  await sql`drop table event_visitor_recent`.execute(db);
  await sql`drop view event_index_buckets`.execute(db);
  await sql`create table event_index_state_v2 (bucket integer not null, merged_seq integer not null)`.execute(
    db,
  );
  await sql`insert into event_index_state_v2 (bucket, merged_seq)
    select bucket + 1, coalesce((select max(seq) from events), 0) from event_index_state`.execute(db);
  await sql`drop table event_index_state`.execute(db);
  await sql`alter table event_index_state_v2 rename to event_index_state`.execute(db);
  await sql`create view event_index_buckets as with recursive b(n) as (select 0 union all
    select n + 1 from b where n + 1 < (select bucket from event_index_state)) select n from b`.execute(db);
}
