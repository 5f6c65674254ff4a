import { type ChildProcess, spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import SQLite from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER_UA, startTestApp } from "../helpers/app.js";
import { basic } from "../../src/modules/events/segment/segment.testing.js";
import { waitFor } from "../helpers/net.js";
import { startPgCluster } from "../helpers/pg-cluster.js";
import { type Seeded, apiAnswers, seedSqlite } from "./migrate-to-postgres.fixture.js";

// The CLI as a user runs it, against a PostgreSQL cluster of this file's own (no server needed).
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
let cluster: Awaited<ReturnType<typeof startPgCluster>>;
let seeded: Seeded;
beforeAll(async () => {
  cluster = await startPgCluster();
  seeded = await seedSqlite();
}, 120_000);
afterAll(async () => {
  await cluster?.stop();
  if (seeded) rmSync(seeded.dataDir, { recursive: true, force: true });
});

async function createDatabase(name: string): Promise<string> {
  await query(cluster.url, `create database ${name}`);
  return cluster.url.replace(/\/postgres$/, `/${name}`);
}

async function query<R extends pg.QueryResultRow>(url: string, text: string): Promise<R[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<R>(text)).rows;
  } finally {
    await c.end();
  }
}

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: Record<string, string> = {}): { child: ChildProcess; done: Promise<Run> } {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", "migrate-to-postgres", ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  const done = new Promise<Run>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done };
}

/** The verification table's rows: name, both counts, result. */
function report(stdout: string) {
  const rows = [
    ...stdout.matchAll(/^(\w+)\s+(\d+)\s+(\d+)\s+([0-9a-f]{16})\s+([0-9a-f]{16})\s+(ok|MISMATCH)\s*$/gm),
  ];
  return rows.map((m) => ({ table: m[1]!, sqlite: Number(m[2]), pg: Number(m[3]), result: m[6]! }));
}

function sqliteCount(table: string): number {
  const db = new SQLite(seeded.file, { readonly: true });
  try {
    return Number(db.prepare(`select count(*) from ${table}`).pluck().get());
  } finally {
    db.close();
  }
}

describe("lift migrate-to-postgres", () => {
  it("copies every table, verifies it, and the app on PostgreSQL answers as it did on SQLite", async () => {
    const url = await createDatabase("copied");
    const run = await cli(["--from", seeded.file, "--to", url]).done;
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^verified: \d+ tables, \d+ rows, counts and checksums equal$/m);
    const rows = report(run.stdout);
    expect(rows.length).toBeGreaterThan(40);
    for (const r of rows) expect(r, r.table).toMatchObject({ pg: r.sqlite, result: "ok" });
    // counted again here, independently of the tool, for the tables the seed filled
    for (const table of [
      "events",
      "event_visitors",
      "identity_visitors",
      "identity_leads",
      "analytics_touchpoints",
      "analytics_conversions",
      "analytics_daily",
      "analytics_activity",
      "experiment_exposures",
      "experiment_variant_stats",
      "goals",
      "beliefs",
      "webhook_endpoints",
      "jobs",
    ]) {
      const n = sqliteCount(table);
      expect(n, table).toBeGreaterThan(0);
      const [pgRow] = await query<{ n: string }>(url, `select count(*) as n from ${table}`);
      expect(Number(pgRow!.n), table).toBe(n);
      expect(rows.find((r) => r.table === table)?.sqlite, table).toBe(n);
    }
    expect(run.stdout).toMatch(/event_visitor_index: SQLite's per-visitor event index/);
    expect(run.stdout).toMatch(/events\.seq: /);
    // Segment's messageIds: SQLite's log (migration 0310) becomes PostgreSQL's rows.
    expect(run.stdout).toMatch(/segment_message_log: SQLite's log of Segment messageIds/);
    expect(run.stderr).toMatch(/^carried 5 Segment messageIds/m);
    const keys = await query<{ message_id: string }>(
      url,
      "select message_id from segment_message_ids order by message_id",
    );
    expect(keys.map((k) => k.message_id)).toEqual(["seg-1", "seg-2", "seg-3", "seg-old"]);
    // A page's (public key's) claim keeps its namespace (migration 0311).
    const pageKeys = await query<{ message_id: string }>(
      url,
      "select message_id from segment_public_message_ids",
    );
    expect(pageKeys.map((k) => k.message_id)).toEqual([seeded.pageMessageId]);

    // what the SQLite app answered is worth comparing: every read found what the seed made
    for (const [read, answer] of Object.entries(seeded.answers))
      expect((answer as { status: number }).status, read).toBe(200);
    expect(seeded.answers["/api/analytics/summary?period=30d"]).toMatchObject({
      body: { visitors: 16, leads: 7 },
    });
    const onPg = await startTestApp({
      databaseUrl: url,
      databaseSchema: undefined,
      secretKey: seeded.secretKey,
    });
    try {
      expect(await apiAnswers(onPg.app, seeded)).toEqual(seeded.answers);
      // and it goes on writing: a new visitor's pageview lands after the copied ones
      const res = await onPg.app.inject({
        method: "POST",
        url: "/api/events",
        headers: { "content-type": "application/json", "user-agent": BROWSER_UA },
        payload: JSON.stringify({
          projectKey: seeded.apiKey,
          type: "pageview",
          visitorId: "after-the-move",
          url: "https://shop.example.com/",
        }),
      });
      expect(res.statusCode, res.body).toBe(200);
      const recent = await onPg.app.inject({
        method: "GET",
        url: "/api/events/recent?limit=1",
        headers: { "x-api-key": seeded.apiKey },
      });
      expect(JSON.parse(recent.body)[0]).toMatchObject({ visitorId: "after-the-move" });
      // An SDK retrying the batch it sent before the move: only the message whose id is past
      // Segment's 24 hours is stored again.
      const orders = async () =>
        Number(
          (
            await onPg.app.db
              .selectFrom("events")
              .select((eb) => eb.fn.countAll().as("n"))
              .where("type", "=", "Order Completed")
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = await orders();
      expect(before).toBe(seeded.segmentMessages.length);
      const retry = await onPg.app.inject({
        method: "POST",
        url: "/v1/batch",
        headers: { "content-type": "application/json", authorization: basic(seeded.apiKey) },
        payload: JSON.stringify({
          batch: [
            ...seeded.segmentMessages,
            { ...seeded.segmentMessages[0], messageId: seeded.expiredMessageId },
          ],
        }),
      });
      expect(retry.statusCode, retry.body).toBe(200);
      expect(await orders()).toBe(before + 1);
      // The page's id, claimed before the move, still never suppresses a server's message, and
      // the page's retry is still a duplicate.
      const send = (key: string, message: Record<string, unknown>) =>
        onPg.app.inject({
          method: "POST",
          url: "/v1/track",
          headers: { "content-type": "application/json", authorization: basic(key) },
          payload: JSON.stringify({ messageId: seeded.pageMessageId, ...message }),
        });
      expect((await send(seeded.apiKey, { userId: "user_7", event: "Order Completed" })).statusCode).toBe(
        200,
      );
      expect(await orders()).toBe(before + 2);
      const page = { anonymousId: seeded.visitors[0], event: "Page Claimed" };
      expect((await send(seeded.publicKey, page)).statusCode).toBe(200);
      const claimed = await onPg.app.db
        .selectFrom("events")
        .select("id")
        .where("type", "=", "Page Claimed")
        .execute();
      expect(claimed).toHaveLength(1);
    } finally {
      await onPg.close();
    }
  }, 120_000);

  it("puts events received in earlier months into their months' partitions", async () => {
    // a copy of the seed whose first events arrived in February 2024 (a database kept for years)
    const dir = mkdtempSync(path.join(tmpdir(), "lift-old-months-"));
    const file = path.join(dir, "lift.db");
    try {
      copyFileSync(seeded.file, file);
      const db = new SQLite(file);
      db.prepare("update events set received_at = ? where seq <= 10").run(Date.UTC(2024, 1, 10));
      db.close();
      const url = await createDatabase("old_months");
      const run = await cli(["--from", file, "--to", url]).done;
      expect(run.code, run.stderr).toBe(0);
      expect(report(run.stdout).find((r) => r.table === "events")).toMatchObject({ result: "ok" });
      const [old] = await query<{ n: string }>(url, "select count(*) as n from events_p202402");
      expect(Number(old!.n)).toBe(10);
      // partitions are not tables of their own to the plan: none is reported or refused
      expect(run.stdout).not.toMatch(/events_p\d{6}/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);

  it("resumes a run killed with SIGKILL part-way, with no row twice and none missing", async () => {
    const url = await createDatabase("resume");
    const args = ["--from", seeded.file, "--to", url, "--chunk-size", "20"];
    // a pause after each chunk, so the kill lands inside the events table
    const first = cli(args, { LIFT_COPY_PAUSE_MS: "100" });
    const eventsProgress = async () =>
      query<{ n: string; rows_copied: string; done: number }>(
        url,
        "select (select count(*) from events) as n, rows_copied, done from lift_copy_progress where table_name = 'events'",
      ).catch(() => []);
    await waitFor(async () => Number((await eventsProgress())[0]?.rows_copied ?? 0) >= 40, 60_000, 20);
    first.child.kill("SIGKILL");
    const killed = await first.done;
    expect(killed.signal).toBe("SIGKILL");
    expect(killed.stderr).toMatch(/^target /m);
    const [mid] = await eventsProgress();
    const total = sqliteCount("events");
    expect(Number(mid!.done)).toBe(0);
    expect(Number(mid!.n)).toBe(Number(mid!.rows_copied));
    expect(Number(mid!.n)).toBeLessThan(total);

    const resumed = await cli(args).done;
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/^verified: /m);
    const [ev] = await query<{ n: string; ids: string }>(
      url,
      "select count(*) as n, count(distinct id) as ids from events",
    );
    expect(Number(ev!.n)).toBe(total);
    expect(Number(ev!.ids)).toBe(total);
    // a table without a primary key, where a repeated chunk would not be refused by the database
    const [act] = await query<{ n: string }>(url, "select count(*) as n from analytics_activity");
    expect(Number(act!.n)).toBe(sqliteCount("analytics_activity"));
  }, 120_000);

  it("--verify-only finds a changed row and a missing one, naming the tables", async () => {
    const url = await createDatabase("tamper");
    expect((await cli(["--from", seeded.file, "--to", url]).done).code).toBe(0);
    await query(url, `update identity_leads set properties = '{"plan":"free"}' where id = 'user_7'`);
    await query(url, "delete from events where id = (select max(id) from events)");
    const run = await cli(["--from", seeded.file, "--to", url, "--verify-only"]).done;
    expect(run.code).toBe(1);
    const rows = report(run.stdout);
    expect(rows.filter((r) => r.result === "MISMATCH").map((r) => r.table)).toEqual([
      "events",
      "identity_leads",
    ]);
    expect(rows.find((r) => r.table === "events")).toMatchObject({ pg: sqliteCount("events") - 1 });
    expect(run.stdout).toMatch(/^identity_leads: first difference at row \d+: SQLite key \[.*"user_7"\]/m);
    expect(run.stdout).toMatch(/^MISMATCH in 2 table\(s\): events, identity_leads$/m);
  }, 120_000);

  it("refuses a target the app already uses, and a source whose migrations differ from the code's", async () => {
    const live = await createDatabase("live");
    const app = await startTestApp({ databaseUrl: live, databaseSchema: undefined });
    await app.tenant();
    await app.close();
    const refused = await cli(["--from", seeded.file, "--to", live]).done;
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/refused: the target already holds rows in .*workspaces/);

    const dir = mkdtempSync(path.join(tmpdir(), "lift-old-"));
    try {
      const old = path.join(dir, "lift.db");
      copyFileSync(seeded.file, old);
      const db = new SQLite(old);
      db.exec("delete from kysely_migration where name = (select max(name) from kysely_migration)");
      db.close();
      const behind = await cli(["--from", old, "--to", await createDatabase("behind")]).done;
      expect(behind.code).toBe(2);
      expect(behind.stderr).toMatch(/not applied to the source: \d{4}_\w+/);
      expect(behind.stderr).toMatch(/start the server once on the SQLite file/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
