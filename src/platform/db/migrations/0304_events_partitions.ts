import { type Kysely, sql } from "kysely";
import type { Dialect } from "../index.js";
import { ensureMonthlyPartitions, monthAfter } from "../partitions.js";

/** Months created ahead of now (later ones: the event store's daily job, event-store/store/partitions.ts). */
const MONTHS_AHEAD = 2;

/**
 * PostgreSQL: `events` is partitioned by month of `received_at` (native range
 * partitioning), so a month's rows are one table to scan, vacuum or drop, and the writer's inserts
 * and their index pages stay in the newest one. The primary key gains `received_at` (a
 * partitioned table's unique keys must hold the partition column; ids stay unique by
 * construction). Existing rows are copied into the new table, month by month as it routes them.
 * SQLite keeps one table.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect !== "postgres") return;
  await sql`alter table events rename to events_unpartitioned`.execute(db);
  await sql`alter table events_unpartitioned rename constraint events_pkey to events_unpartitioned_pkey`.execute(
    db,
  );
  await sql`alter index events_visitor_ts rename to events_unpartitioned_visitor_ts`.execute(db);
  await sql`create table events (like events_unpartitioned including defaults) partition by range (received_at)`.execute(
    db,
  );
  await sql`alter table events add constraint events_pkey primary key (id, received_at)`.execute(db);
  await sql`create index events_visitor_ts on events (project_id, visitor_id, ts)`.execute(db);
  const { rows } = await sql<{ first: number | null; last: number | null }>`
    select min(received_at) as first, max(received_at) as last from events_unpartitioned`.execute(db);
  const now = Date.now();
  await ensureMonthlyPartitions(
    (text) => sql.raw(text).execute(db),
    "events",
    Math.min(Number(rows[0]?.first ?? now), now),
    Math.max(Number(rows[0]?.last ?? now), monthAfter(now, MONTHS_AHEAD)),
  );
  await sql`insert into events select * from events_unpartitioned`.execute(db);
  await sql`drop table events_unpartitioned`.execute(db);
}
