import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, call, printedApiKey } from "../hardening/lift-process.js";
import { waitFor } from "../helpers/net.js";
import { startPgCluster } from "../helpers/pg-cluster.js";
import { type RedisServer, startRedisServer } from "../helpers/redis-server.js";
import {
  killAll,
  type Proc,
  printed,
  query,
  startLift,
  stopAll,
  webhookReceiver,
} from "./two-processes.harness.js";
import {
  type Db,
  ENGINE_REPORTS,
  REPORTS,
  type Visitor,
  expectedSessions,
  get,
  ingest,
  leadsOf,
  rounded,
  script,
  sessionsOf,
} from "./two-processes.script.js";

/**
 * Issue 18: two API processes (A, B) on different ports over one PostgreSQL database and one
 * Redis, both started by this test (Debian's packages), so it runs the same in the SQLite and the
 * PostgreSQL CI stage. Each visitor's events go to A and B in turn, in time order (many visitors
 * in flight at once; now and then two events of a visitor at the same moment, one on each process,
 * as a browser sends a pageview and a click); a reference process R gets the same events alone, on
 * a database and Redis database of its own. Then sessions (also checked against the 30-minute rule
 * itself), journeys, summary, breakdowns, leads and attribution of A/B equal R's; every webhook job
 * runs once although A and B both run job workers; a read limit counts once.
 */
const VISITORS = 60;
const READ_LIMIT = 120;

let cluster: Awaited<ReturnType<typeof startPgCluster>>;
let redis: RedisServer;
let A: Proc;
let B: Proc;
let R: Proc;
/** database `two` (A and B) and database `one` (R) */
let two: Db;
let one: Db;
const dirs: string[] = [];
// The webhook receiver (HTTPS, self-signed; the processes trust it via NODE_EXTRA_CA_CERTS).
const receiver = webhookReceiver();

beforeAll(async () => {
  process.once("exit", killAll);
  const [c, r] = await Promise.all([startPgCluster(), startRedisServer()]);
  cluster = c;
  redis = r;
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query("CREATE DATABASE two");
  await admin.query("CREATE DATABASE one");
  await admin.end();
  const dbUrl = (name: string) => cluster.url.replace(/\/postgres$/, `/${name}`);

  await new Promise<void>((resolve) => receiver.server.listen(0, "127.0.0.1", resolve));
  const dirTwo = mkdtempSync(path.join(tmpdir(), "lift-two-"));
  const dirOne = mkdtempSync(path.join(tmpdir(), "lift-one-"));
  dirs.push(dirTwo, dirOne);
  const certFile = path.join(dirTwo, "receiver-ca.pem");
  writeFileSync(certFile, receiver.cert);
  const common: NodeJS.ProcessEnv = {
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    RATE_LIMIT_READS: String(READ_LIMIT),
    // The ingest here makes hundreds of leads from one test address: the subject is the two
    // processes agreeing, not the public key's bound on new leads (test/security/public-ingest.test.ts).
    RATE_LIMIT_ADDRESS_LEADS: "0",
    JOB_POLL_MS: "100",
    ALLOW_PRIVATE_WEBHOOK_TARGETS: "1",
    NODE_EXTRA_CA_CERTS: certFile,
  };
  // A and B: one database, one Redis (database 0), one secret key (webhook secrets are sealed with it).
  const envTwo = {
    ...common,
    DATA_DIR: dirTwo,
    SECRET_KEY: randomBytes(32).toString("base64url"),
    DATABASE_URL: dbUrl("two"),
    REDIS_URL: redis.url,
  };
  const envOne = {
    ...common,
    DATA_DIR: dirOne,
    SECRET_KEY: randomBytes(32).toString("base64url"),
    DATABASE_URL: dbUrl("one"),
    REDIS_URL: `${redis.url}/1`,
  };
  [[A, B], R] = await Promise.all([
    (async () => {
      // Rollup rows of their own (ROLLUP_SHARD): reports then merge two processes' rows.
      const a = await startLift("A", { ...envTwo, ROLLUP_SHARD: "1" });
      return [a, await startLift("B", { ...envTwo, ROLLUP_SHARD: "2" })] as const;
    })(),
    startLift("R", envOne),
  ]);
  // The first start on an empty database prints the credentials; B, started second on it, prints none.
  expect(B.output()).not.toMatch(/public key:/);
  const creds = (p: Proc, url: string): Db => ({
    url,
    apiKey: printedApiKey(p.output()),
    publicKey: printed(p.output(), "public key"),
    projectId: printed(p.output(), "project id"),
  });
  two = creds(A, dbUrl("two"));
  one = creds(R, dbUrl("one"));
}, 120_000);

afterAll(async () => {
  process.removeListener("exit", killAll);
  await stopAll();
  receiver.server.closeAllConnections();
  await new Promise((r) => receiver.server.close(r));
  await redis?.stop();
  await cluster?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("two API processes over one PostgreSQL and one Redis", () => {
  let visitors: Visitor[];
  let webhookId: string;
  /** the first test's ingest completed (the others compare what it stored) */
  let ingested = false;

  it("ingest split across A and B gives the sessions, journeys, reports and leads of one process", async () => {
    const started = Date.now();
    // The same configuration on both databases: conversion goals, and a webhook on `two`.
    for (const [p, db] of [
      [A, two],
      [R, one],
    ] as const) {
      for (const goal of [
        { name: "Purchase", eventType: "purchase" },
        { name: "Signup", eventType: "signup" },
      ]) {
        const res = await call(p.base, "POST", "/api/conversion-goals", { key: db.apiKey, body: goal });
        expect(res.status, JSON.stringify(res.body)).toBe(201);
      }
    }
    const port = (receiver.server.address() as AddressInfo).port;
    const wh = await call(B.base, "POST", "/api/webhooks", {
      key: two.apiKey,
      body: { url: `https://localhost:${port}/hook`, events: ["lead.created", "lead.updated"] },
    });
    expect(wh.status, JSON.stringify(wh.body)).toBe(201);
    webhookId = wh.body.id;

    visitors = script(Date.now(), VISITORS);
    await Promise.all([ingest(visitors, [A, B], two), ingest(visitors, [R], one)]);
    ingested = true;
    const events = visitors.reduce((n, v) => n + v.times.length, 0);
    console.log(
      `two-processes: ${VISITORS} visitors, ${events} events each way in ${Date.now() - started} ms`,
    );

    // Sessions: R's follow the rule; A/B's are R's, visitor by visitor.
    const [ref, split] = await Promise.all([sessionsOf(R, one.apiKey), sessionsOf(A, two.apiKey)]);
    expect(ref.size).toBe(VISITORS);
    for (const v of visitors) expect(ref.get(v.id), v.id).toHaveLength(expectedSessions(v));
    for (const v of visitors) expect(split.get(v.id), `sessions of ${v.id} on A/B`).toEqual(ref.get(v.id));
    const sessions = [...ref.values()].reduce((n, s) => n + s.length, 0);
    expect(sessions).toBeGreaterThan(VISITORS * 2);

    // Journeys, read from A and B in turn.
    for (const [i, v] of visitors.entries()) {
      const [r, s] = await Promise.all([
        get(R, one.apiKey, `/api/identity?visitorId=${v.id}`),
        get(i % 2 ? B : A, two.apiKey, `/api/identity?visitorId=${v.id}`),
      ]);
      const shape = (j: any) => ({ ...j, leadId: j.leadId !== null });
      expect(shape(s), `journey of ${v.id}`).toEqual(shape(r));
      expect(r.events).toHaveLength(v.times.length);
    }

    // Summary, time series, breakdowns and attribution: A's and B's rollup rows merged give R's.
    const shards = await query<{ shard: number }>(
      two.url,
      "select distinct shard from analytics_daily order by shard",
    );
    // (Shard 0: leads counted when a lead is created, outside the events flush.)
    expect(shards.map((r) => Number(r.shard))).toEqual(expect.arrayContaining([1, 2]));
    for (const [i, url] of REPORTS.entries()) {
      const [r, s] = await Promise.all([get(R, one.apiKey, url), get(i % 2 ? B : A, two.apiKey, url)]);
      expect(rounded(s), url).toEqual(rounded(r));
    }
    const summary = await get(R, one.apiKey, "/api/analytics/summary");
    expect(summary.visitors).toBeGreaterThan(VISITORS * 0.9); // a sketch: approximately 60
    expect(summary.leads).toBe(VISITORS / 2);
    expect(summary.conversions).toBeGreaterThan(10);
    expect(summary.topChannels.length).toBeGreaterThanOrEqual(6);
    const attribution = await get(R, one.apiKey, "/api/attribution/summary");
    expect(attribution.channels.some((c: { revenue: number }) => c.revenue > 0)).toBe(true);

    // Leads (their ids differ between the databases).
    const [refLeads, splitLeads] = await Promise.all([leadsOf(R, one.apiKey), leadsOf(B, two.apiKey)]);
    expect(refLeads).toHaveLength(VISITORS / 2);
    expect(splitLeads).toEqual(refLeads);
  }, 60_000);

  it("questions over raw events get one answer from A's and B's engines (a copy each) and R's", async () => {
    expect(ingested, "the first test's ingest did not complete").toBe(true);
    // A and B share a DATA_DIR: each keeps its engine's copy in a file of its own.
    for (const [method, url, body] of ENGINE_REPORTS) {
      const ask = (p: Proc, key: string) => call(p.base, method, url, { key, body });
      const [r, a, b] = await Promise.all([ask(R, one.apiKey), ask(A, two.apiKey), ask(B, two.apiKey)]);
      for (const res of [r, a, b])
        expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBe(200);
      // A cohort's count (its answer also says when it was computed).
      const answer = (res: { body: any }) =>
        url === "/api/cohorts/preview" ? res.body.count : rounded(res.body);
      expect(answer(a), `${method} ${url} on A`).toEqual(answer(r));
      expect(answer(b), `${method} ${url} on B`).toEqual(answer(r));
    }
    const copies = readdirSync(dirs[0]!)
      .filter((f) => f.endsWith(".duckdb"))
      .sort();
    expect(copies).toEqual(["analytics-2.duckdb", "analytics.duckdb"]);
  });

  it("every service event is delivered once although A and B both run job workers", async () => {
    expect(ingested, "the first test's ingest did not complete").toBe(true);
    const serviceEvents = () =>
      query<{ id: string; type: string }>(
        two.url,
        "select id, type from service_events where type like 'lead.%' order by id",
      );
    // Settled: a delivery per service event, no job waiting or running.
    await waitFor(
      async () => {
        const ids = new Set((await serviceEvents()).map((e) => e.id));
        const open = await query<{ n: string }>(
          two.url,
          "select count(*) as n from jobs where status in ('queued', 'running') and run_at <= $1",
          [Date.now()],
        );
        return receiver.delivered.length >= ids.size && Number(open[0]!.n) === 0;
      },
      20_000,
      100,
    );
    // A few more polls of both workers: a job run twice would show up now.
    await new Promise((r) => setTimeout(r, 600));
    const events = await serviceEvents();
    const byType = (list: { type: string }[]) => {
      const m: Record<string, number> = {};
      for (const e of list) m[e.type] = (m[e.type] ?? 0) + 1;
      return m;
    };
    // The same service events as one process raised for the same script.
    expect(byType(events)).toEqual(
      byType(await query(one.url, "select type from service_events where type like 'lead.%'")),
    );
    expect(byType(events)["lead.created"]).toBe(VISITORS / 2);

    const { delivered } = receiver;
    const deliveredIds = delivered.map((d) => d.eventId).sort();
    expect(deliveredIds).toEqual(events.map((e) => e.id).sort());
    expect(new Set(delivered.map((d) => d.messageId)).size).toBe(delivered.length);

    const jobs = await query<{ type: string; status: string; attempts: number }>(
      two.url,
      "select type, status, attempts from jobs where type in ('service-event.dispatch', 'webhook.deliver')",
    );
    expect(jobs.filter((j) => j.type === "webhook.deliver")).toHaveLength(events.length);
    expect(jobs.filter((j) => j.status !== "done" || Number(j.attempts) !== 1)).toEqual([]);
    const attempts = await query<{ n: string }>(
      two.url,
      "select count(*) as n from webhook_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.endpoint_id = $1",
      [webhookId],
    );
    expect(Number(attempts[0]!.n)).toBe(events.length);
    console.log(`two-processes: ${delivered.length} deliveries, at most ${receiver.maxInFlight()} at once`);
  }, 30_000);

  it("a read limit counts once across A and B (a shared counter in Redis)", async () => {
    // A key of its own, so the counter starts at zero.
    const login = await fetch(`${A.base}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(ADMIN),
    });
    expect(login.status).toBe(200);
    const cookie = login.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const minted = await call(B.base, "POST", `/api/projects/${two.projectId}/keys`, {
      body: { name: "limits" },
      headers: { cookie },
    });
    expect(minted.status, JSON.stringify(minted.body)).toBe(201);
    const key = minted.body.rawKey as string;
    const statuses: Record<string, number[]> = { A: [], B: [] };
    // Batches of 10 in flight (5 on each process); the limit falls on a batch boundary.
    for (let i = 0; i < READ_LIMIT + 30; i += 10) {
      const batch = await Promise.all(
        Array.from({ length: 10 }, async (_, k) => {
          const p = k % 2 ? B : A;
          const res = await fetch(`${p.base}/api/goals`, { headers: { "x-api-key": key } });
          await res.arrayBuffer();
          return [p.name, res.status] as const;
        }),
      );
      for (const [name, status] of batch) statuses[name]!.push(status);
    }
    const count = (name: string, status: number) => statuses[name]!.filter((s) => s === status).length;
    expect({
      A200: count("A", 200),
      B200: count("B", 200),
      A429: count("A", 429),
      B429: count("B", 429),
    }).toEqual({
      A200: READ_LIMIT / 2,
      B200: READ_LIMIT / 2,
      A429: 15,
      B429: 15,
    });
  }, 30_000);
});
