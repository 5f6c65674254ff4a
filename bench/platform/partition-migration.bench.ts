/**
 * How long migration 0304 (events partitioned by month, PostgreSQL) takes on a database that
 * already holds events, against a plain copy of the same table measured in the same run.
 *
 *   npx tsx bench/platform/partition-migration.bench.ts
 *   BENCH_EVENTS=1000000 (rows), BENCH_MONTHS=12 (spread of received_at),
 *   BENCH_PG_URL=postgres://postgres@127.0.0.1:54329/postgres
 */
import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { migrateUpTo } from "../../src/platform/db/migrate.js";
import { up } from "../../src/platform/db/migrations/0304_events_partitions.js";
import { up as leadIndex } from "../../src/platform/db/migrations/0305_events_lead_index.js";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const MONTHS = Number(process.env.BENCH_MONTHS ?? 12);
const PG_URL = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:54329/postgres";
const name = `bench_partitions_${process.pid}`;

const admin = new pg.Client({ connectionString: PG_URL });
await admin.connect();
await admin.query(`create database ${name}`);
const url = new URL(PG_URL);
url.pathname = `/${name}`;
const pool = new pg.Pool({ connectionString: url.toString() });
pool.on("error", () => {}); // the drop at the end ends its connections
const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
const seconds = async (fn: () => Promise<unknown>): Promise<number> => {
  const t0 = performance.now();
  await fn();
  return (performance.now() - t0) / 1000;
};
try {
  await migrateUpTo(db, "postgres", "0303_events_origin");
  const span = MONTHS * 30 * 86_400_000;
  const now = Date.now();
  // Rows like the writer's: 500 visitors, received over the last MONTHS months in id order.
  const seed = await seconds(() =>
    sql`insert into events (id, project_id, visitor_id, lead_id, type, url, referrer, data, ts, received_at,
        session_id, channel, source, is_bot, is_server)
      select 'ev_' || lpad(g::text, 12, '0'), 'prj_bench', 'v' || (g % 500),
        case when g % 100 = 0 then 'lead_' || ((g / 100) % 300) end, 'pageview',
        'https://shop.example.com/p/' || (g % 50), null, '{}', r, r, 's' || (g % 2000), 'direct', null, 0, 0
      from generate_series(1, ${EVENTS}::integer) g, lateral (select ${now - span}::bigint + (g::bigint * ${span}::bigint / ${EVENTS}::bigint) as r) t`.execute(
      db,
    ),
  );
  await sql`vacuum analyze events`.execute(db);
  const size = (
    await sql<{ mb: number }>`select pg_total_relation_size('events') / 1048576.0 as mb`.execute(db)
  ).rows[0]!.mb;
  // baseline: the same rows copied into a plain table with the same indexes
  const copy = await seconds(async () => {
    await sql`create table events_copy (like events including all)`.execute(db);
    await sql`insert into events_copy select * from events`.execute(db);
  });
  await sql`drop table events_copy`.execute(db);
  const migrate = await seconds(() => db.transaction().execute((trx) => up(trx, "postgres")));
  // The index review's one addition (0305): erasing a lead finds the events sent with its id.
  const erasureQuery = () =>
    sql`select count(*) from events where project_id = 'prj_bench'
      and (visitor_id in ('v1', 'v2', 'v3') or lead_id = 'lead_7')`.execute(db);
  const erasureMs = async () => {
    await erasureQuery();
    const runs = 5;
    return (
      ((await seconds(async () => {
        for (let i = 0; i < runs; i++) await erasureQuery();
      })) *
        1000) /
      runs
    );
  };
  const withoutIndex = await erasureMs();
  await leadIndex(db, "postgres");
  await sql`analyze events`.execute(db);
  const withIndex = await erasureMs();
  const parts = (
    await sql<{
      n: number;
    }>`select count(*)::int as n from pg_inherits where inhparent = 'events'::regclass`.execute(db)
  ).rows[0]!.n;
  const moved = (await sql<{ n: number }>`select count(*)::int as n from events`.execute(db)).rows[0]!.n;
  console.log(
    `${EVENTS} events (${Number(size).toFixed(0)} MB with indexes) over ${MONTHS} months; seeded in ${seed.toFixed(1)} s`,
  );
  console.log(`plain copy into a table with the same indexes: ${copy.toFixed(1)} s`);
  console.log(
    `migration 0304: ${migrate.toFixed(1)} s (${(migrate / copy).toFixed(2)}x the plain copy; ${Math.round(EVENTS / migrate)} rows/s), ${parts} partitions, ${moved} rows after`,
  );
  console.log(
    `a lead's events for erasure (3 visitors or the lead id): ${withoutIndex.toFixed(1)} ms without events_lead, ${withIndex.toFixed(1)} ms with it`,
  );
} finally {
  await db.destroy();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
}
