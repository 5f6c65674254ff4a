import { randomBytes } from "node:crypto";
import SQLite from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect, sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isPostgres } from "../../src/config.js";
import type { Dialect } from "../../src/platform/db/index.js";
import { up as createEvents } from "../../src/platform/db/migrations/0300_events.js";
import { up as eventsOrigin } from "../../src/platform/db/migrations/0303_events_origin.js";
import { up as createIdentity } from "../../src/platform/db/migrations/0350_identity.js";
import { up as leadIds } from "../../src/platform/db/migrations/0351_identity_lead_ids.js";
import { up as activity } from "../../src/platform/db/migrations/0392_analytics_activity.js";
import { testSchemaPrefix } from "../global-setup.js";

// On the database DATABASE_URL selects: a schema of its own on PostgreSQL, in memory on SQLite.
const dialect: Dialect = isPostgres({ databaseUrl: process.env.DATABASE_URL }) ? "postgres" : "sqlite";
let db: Kysely<any>;
beforeAll(async () => {
  if (dialect === "sqlite") {
    db = new Kysely({ dialect: new SqliteDialect({ database: new SQLite(":memory:") }) });
    return;
  }
  const schema = `${testSchemaPrefix(process.ppid)}${randomBytes(6).toString("hex")}`;
  const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await c.connect();
  await c.query(`CREATE SCHEMA ${schema}`);
  await c.end();
  db = new Kysely({
    dialect: new PostgresDialect({
      pool: new pg.Pool({
        connectionString: process.env.DATABASE_URL,
        options: `-c search_path=${schema}`,
        max: 1,
      }),
    }),
  });
});
afterAll(async () => db.destroy());

describe("migration 0303 (event origin) on a database that already holds events", () => {
  it("marks the synthetic lead visitor's events as server events and defaults the rest to web", async () => {
    await createEvents(db, dialect);
    const row = (id: string, visitor: string) => ({
      id,
      project_id: "p1",
      visitor_id: visitor,
      lead_id: null,
      type: "pageview",
      url: "https://a.example/",
      referrer: null,
      data: "{}",
      ts: 1000,
      received_at: 1000,
      session_id: "s",
      channel: "direct",
      source: null,
      is_bot: 0,
    });
    await db
      .insertInto("events")
      .values([row("ev_1", "v1"), row("ev_2", "lead:cus_1"), row("ev_3", "payments:ch_1")])
      .execute();
    await eventsOrigin(db, dialect);
    const rows = await db.selectFrom("events").select(["id", "is_server"]).orderBy("id").execute();
    expect(rows.map((r) => [r.id, Number(r.is_server)])).toEqual([
      ["ev_1", 0],
      ["ev_2", 1],
      ["ev_3", 0],
    ]);
  });
});

describe("migration 0392 (analytics activity) on a database that already holds events", () => {
  it("folds the stored events in: one row per visitor, day and type; bots and anonymous ones left out", async () => {
    const row = (id: string, visitor: string, ts: number, type = "pageview", bot = 0) => ({
      id,
      project_id: "p1",
      visitor_id: visitor,
      lead_id: null,
      type,
      url: "https://a.example/",
      referrer: null,
      data: "{}",
      ts,
      received_at: ts,
      session_id: "s",
      channel: "direct",
      source: null,
      is_bot: bot,
      is_server: 0,
    });
    const day2 = 2 * 86_400_000;
    await db
      .insertInto("events")
      .values([
        row("ev_4", "v1", 2000),
        row("ev_5", "v1", day2 + 5, "signup"),
        row("ev_6", "v1", day2 + 9, "signup"),
        row("ev_7", "crawler", 3000, "pageview", 1),
        row("ev_8", "", 3000, "$revenue"),
      ])
      .execute();
    await activity(db, dialect);
    const rows = await db
      .selectFrom("analytics_activity")
      .select(["visitor_id", "day", "type"])
      .orderBy("visitor_id")
      .orderBy("day")
      .execute();
    expect(rows.map((r) => [r.visitor_id, Number(r.day), r.type])).toEqual([
      ["lead:cus_1", 0, "pageview"],
      ["payments:ch_1", 0, "pageview"],
      ["v1", 0, "pageview"],
      ["v1", 2, "signup"],
    ]);
  });
});

describe("migration 0351 (leads by the caller's id) on a database that already holds leads", () => {
  const lead = (project: string, id: string, email: string | null) => ({
    id,
    project_id: project,
    workspace_id: "w1",
    email,
    name: null,
    source: "crm",
    properties: "{}",
    first_seen: null,
    channel: null,
    attr_source: null,
    landing_page: null,
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-01T00:00:00.000Z",
  });

  it("keeps every lead; ids become unique per project, emails optional and still unique per project", async () => {
    await createIdentity(db, dialect);
    await db
      .insertInto("identity_leads")
      .values([lead("p1", "lead_a", "a@example.com"), lead("p2", "lead_b", "b@example.com")])
      .execute();
    await leadIds(db, dialect);
    const kept = await db
      .selectFrom("identity_leads")
      .select(["project_id", "id", "email"])
      .orderBy("id")
      .execute();
    expect(kept).toEqual([
      { project_id: "p1", id: "lead_a", email: "a@example.com" },
      { project_id: "p2", id: "lead_b", email: "b@example.com" },
    ]);
    // the same id in another project, and leads without email
    await db
      .insertInto("identity_leads")
      .values([lead("p2", "lead_a", null), lead("p2", "user_42", null)])
      .execute();
    await expect(
      db
        .insertInto("identity_leads")
        .values(lead("p1", "lead_a", null))
        .execute(),
    ).rejects.toThrow();
    await expect(
      db
        .insertInto("identity_leads")
        .values(lead("p1", "lead_c", "a@example.com"))
        .execute(),
    ).rejects.toThrow();
    const count = await db
      .selectFrom("identity_leads")
      .select(sql<number>`count(*)`.as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(4);
  });
});
