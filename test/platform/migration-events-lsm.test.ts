import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { describe, expect, it } from "vitest";
import { up as createEvents } from "../../src/platform/db/migrations/0300_events.js";
import { up as visitorIndex } from "../../src/platform/db/migrations/0301_events_visitor_lsm.js";

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
});
