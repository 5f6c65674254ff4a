import { Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest, migrateUpTo } from "../../src/platform/db/migrate.js";
import { monthAfter, partitionName } from "../../src/platform/db/partitions.js";
import { ensureEventPartitions } from "../../src/modules/event-store/store/partitions.js";
import { PARTITIONS_JOB } from "../../src/modules/event-store/schema.js";
import { enqueueJob } from "../../src/platform/jobs/index.js";
import { BROWSER_UA, startTestApp } from "../helpers/app.js";
import { startPgCluster } from "../helpers/pg-cluster.js";

// PostgreSQL partitions `events` by month (migration 0304): a cluster of this file's own, so it
// runs in both CI stages.
let cluster: Awaited<ReturnType<typeof startPgCluster>>;
beforeAll(async () => {
  cluster = await startPgCluster();
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
});

let databases = 0;
async function database(): Promise<{ url: string; db: Kysely<any> }> {
  const name = `partitions_${++databases}`;
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = cluster.url.replace(/\/postgres$/, `/${name}`);
  return {
    url,
    db: new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url }) }) }),
  };
}

/** The partitions of `events` with their row counts, by name. */
async function partitions(db: Kysely<any>): Promise<Map<string, number>> {
  const { rows } = await sql<{ name: string; n: number }>`
    select c.relname as name, (xpath('/row/n/text()',
      query_to_xml(format('select count(*) as n from %I', c.relname), false, true, '')))[1]::text::int as n
    from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'events'::regclass
    order by 1`.execute(db);
  return new Map(rows.map((r) => [r.name, Number(r.n)]));
}

const OLD = Date.UTC(2024, 1, 10, 12); // February 2024

function eventRow(id: string, receivedAt: number) {
  return {
    id,
    project_id: "p1",
    visitor_id: `v-${id}`,
    lead_id: null,
    type: "pageview",
    url: "https://example.com/",
    referrer: null,
    data: "{}",
    ts: receivedAt,
    received_at: receivedAt,
    session_id: `s-${id}`,
    channel: "direct",
    source: null,
    is_bot: 0,
    is_server: 0,
  };
}

describe("events partitioned by month on PostgreSQL", () => {
  it("the migration moves existing rows into their months' partitions and makes the coming months'", async () => {
    const { db } = await database();
    try {
      await migrateUpTo(db, "postgres", "0303_events_origin");
      const now = Date.now();
      await db
        .insertInto("events")
        .values([eventRow("a", OLD), eventRow("b", OLD + 86_400_000), eventRow("c", now)])
        .execute();
      await migrateToLatest(db, "postgres");

      const kind = await sql<{
        k: string;
      }>`select relkind as k from pg_class where oid = 'events'::regclass`.execute(db);
      expect(kind.rows[0]!.k).toBe("p");
      const parts = await partitions(db);
      expect(parts.get("events_p202402")).toBe(2);
      expect(parts.get(partitionName("events", now))).toBe(1);
      expect(parts.has(partitionName("events", monthAfter(now, 2)))).toBe(true);
      // every month between the oldest row and now, none skipped
      expect(parts.has("events_p202403")).toBe(true);
      const ids = await db.selectFrom("events").select("id").orderBy("id").execute();
      expect(ids.map((r) => r.id)).toEqual(["a", "b", "c"]);
      const key = await sql<{ def: string }>`
        select pg_get_constraintdef(oid) as def from pg_constraint where conname = 'events_pkey' and conrelid = 'events'::regclass`.execute(
        db,
      );
      expect(key.rows[0]!.def).toBe("PRIMARY KEY (id, received_at)");
    } finally {
      await db.destroy();
    }
  });

  it("ingest lands in this month's partition, and a missing month is created by the writer, by boot and by the job", async () => {
    const { url, db } = await database();
    const t = await startTestApp({
      databaseUrl: url,
      databaseSchema: undefined,
      rateLimits: { events: 0, reads: 0, writes: 0 },
    });
    try {
      const a = await t.tenant();
      const send = (visitorId: string) =>
        t.app.inject({
          method: "POST",
          url: "/api/events",
          headers: { "content-type": "application/json", "user-agent": BROWSER_UA },
          payload: JSON.stringify({
            projectKey: a.publicKey,
            type: "pageview",
            visitorId,
            url: "https://example.com/",
          }),
        });
      expect((await send("first")).statusCode).toBe(200);
      const month = partitionName("events", Date.now());
      expect((await partitions(db)).get(month)).toBe(1);

      // This month's partition gone (as if the look-ahead never ran): the writer creates it and
      // the request is stored, not failed.
      await sql.raw(`drop table ${month}`).execute(db);
      const res = await send("after-drop");
      expect(res.statusCode, res.body).toBe(200);
      expect((await partitions(db)).get(month)).toBe(1);
      const stored = await db.selectFrom("events").select("visitor_id").execute();
      expect(stored.map((r) => r.visitor_id)).toEqual(["after-drop"]);

      // The daily job makes the coming months'; two processes' at once create each once.
      const ahead = partitionName("events", monthAfter(Date.now(), 2));
      await sql.raw(`drop table ${ahead}`).execute(db);
      await enqueueJob(t.app.db, PARTITIONS_JOB, {});
      await t.app.worker.drain();
      expect((await partitions(db)).has(ahead)).toBe(true);
      // and a process starting makes them before its first insert
      await sql.raw(`drop table ${ahead}`).execute(db);
      const t2 = await startTestApp({ databaseUrl: url, databaseSchema: undefined });
      await t2.close();
      expect((await partitions(db)).has(ahead)).toBe(true);
      const later = Date.UTC(2031, 0, 1);
      const made = await Promise.all([
        ensureEventPartitions(t.app.db, later, monthAfter(later, 3)),
        ensureEventPartitions(db, later, monthAfter(later, 3)),
      ]);
      expect(made.flat().sort()).toEqual([
        "events_p203101",
        "events_p203102",
        "events_p203103",
        "events_p203104",
      ]);
    } finally {
      await t.close();
      await db.destroy();
    }
  });
});
