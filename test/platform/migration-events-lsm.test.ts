import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { describe, expect, it } from "vitest";
import { up as createEvents } from "../../src/platform/db/migrations/0300_events.js";
import { up as visitorIndex } from "../../src/platform/db/migrations/0301_events_visitor_lsm.js";
import { up as indexTail } from "../../src/platform/db/migrations/0302_events_index_tail.js";

// Runs on SQLite whatever DATABASE_URL says: the rebuild is SQLite's (PostgreSQL only drops an index).
describe("migration 0301 on a SQLite database that already holds events", () => {
  it("keeps every event, in order, and indexes them per visitor in bucket 0", async () => {
    const sqlite = new SQLite(":memory:");
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: sqlite }) });
    await createEvents(db, "sqlite");
    const insert = sqlite.prepare(
      "insert into events (id, project_id, visitor_id, lead_id, type, url, referrer, data, ts, received_at, session_id, channel, source, is_bot) values (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    );
    for (let i = 0; i < 30; i++)
      insert.run(
        `ev_${String(i).padStart(3, "0")}`,
        "p1",
        `v${i % 4}`,
        null,
        "pageview",
        `https://a.example/${i}`,
        null,
        `{"i":${i}}`,
        1000 + i,
        2000,
        `s${i % 4}`,
        "direct",
        null,
        0,
      );
    await visitorIndex(db, "sqlite");
    const rows = sqlite.prepare("select seq, id, visitor_id, data from events order by seq").all() as {
      seq: number;
      id: string;
      visitor_id: string;
      data: string;
    }[];
    expect(rows.map((r) => r.id)).toEqual(
      Array.from({ length: 30 }, (_, i) => `ev_${String(i).padStart(3, "0")}`),
    );
    expect(rows.map((r) => JSON.parse(r.data).i)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    const journey = sqlite
      .prepare(
        "select e.id from event_visitor_index x join events e on e.seq = x.seq where x.project_id = 'p1' and x.bucket = 0 and x.visitor_id = 'v2' order by x.ts",
      )
      .all() as { id: string }[];
    expect(journey.map((r) => r.id)).toEqual(rows.filter((r) => r.visitor_id === "v2").map((r) => r.id));
    expect(sqlite.prepare("select n from event_index_buckets").all()).toEqual([{ n: 0 }, { n: 1 }]);
    const indexes = sqlite
      .prepare("select name from sqlite_master where type = 'index' and tbl_name = 'events'")
      .all();
    expect(indexes).toEqual([]);
    await db.destroy();
  });

  it("0302 merges what waits in the recent table into its bucket, publishes it and records merged_seq", async () => {
    const sqlite = new SQLite(":memory:");
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: sqlite }) });
    await createEvents(db, "sqlite");
    await visitorIndex(db, "sqlite");
    // events stored after 0301: their entries wait in event_visitor_recent (bucket 1 is current)
    const insert = sqlite.prepare(
      "insert into events (id, project_id, visitor_id, type, url, data, ts, received_at, session_id, channel, is_bot) values (?, 'p1', ?, 'pageview', 'https://a.example/', '{}', ?, 0, 's', 'direct', 0)",
    );
    const recent = sqlite.prepare(
      "insert into event_visitor_recent (project_id, visitor_id, ts, seq) values ('p1', ?, ?, ?)",
    );
    for (let i = 0; i < 6; i++) {
      const { lastInsertRowid } = insert.run(`ev_${i}`, `v${i % 2}`, 1000 + i);
      recent.run(`v${i % 2}`, 1000 + i, lastInsertRowid);
    }
    await indexTail(db, "sqlite");
    const tables = sqlite
      .prepare("select name from sqlite_master where name like 'event_visitor_recent'")
      .all();
    expect(tables).toEqual([]);
    expect(sqlite.prepare("select bucket, merged_seq from event_index_state").get()).toEqual({
      bucket: 2,
      merged_seq: 6,
    });
    expect(sqlite.prepare("select n from event_index_buckets").pluck().all()).toEqual([0, 1]);
    const v1 = sqlite
      .prepare(
        "select seq from event_visitor_index where project_id = 'p1' and bucket = 1 and visitor_id = 'v1' order by ts",
      )
      .pluck()
      .all();
    expect(v1).toEqual([2, 4, 6]);
    await db.destroy();
  });
});
