import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeSelfSignedCert } from "../../src/modules/webhooks/testing/receiver.js";
import { ADMIN, call, printedApiKey } from "../hardening/lift-process.js";
import { freePort, waitFor } from "../helpers/net.js";
import { startPgCluster } from "../helpers/pg-cluster.js";
import { type RedisServer, startRedisServer } from "../helpers/redis-server.js";
import { mulberry32 } from "../../src/modules/experiments/stats.js";

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
const ROOT = path.resolve(import.meta.dirname, "../..");
const BROWSER_UA =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36";
const VISITORS = 60;
const READ_LIMIT = 120;
const MIN = 60_000;
const SESSION_GAP_MS = 30 * MIN;

// ---- the processes ------------------------------------------------------------------------------

interface Proc {
  name: string;
  child: ChildProcess;
  base: string;
  output: () => string;
}

const children: ChildProcess[] = [];
const dirs: string[] = [];
const killAll = () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
};

/** `node --import tsx src/main.ts` with exactly the given database and Redis; healthy (Redis up). */
async function startLift(name: string, env: NodeJS.ProcessEnv): Promise<Proc> {
  const port = await freePort();
  const base = { ...process.env };
  // Whatever the CI stage put in the environment, this test chooses the database and the Redis.
  delete base.DATABASE_URL;
  delete base.REDIS_URL;
  delete base.SMTP_URL;
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts"], {
    cwd: ROOT,
    env: { ...base, HOST: "127.0.0.1", PORT: String(port), LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  child.stdout!.on("data", (c) => {
    out += c;
  });
  child.stderr!.on("data", (c) => {
    out += c;
  });
  const proc = { name, child, base: `http://127.0.0.1:${port}`, output: () => out };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}: ${out}`);
    const health = await fetch(`${proc.base}/healthz`).then(
      async (r) => (r.ok ? ((await r.json()) as { status: string }) : undefined),
      () => undefined,
    );
    // "ok", not "degraded": with REDIS_URL, Redis is connected before the first event arrives.
    if (health?.status === "ok") return proc;
    if (Date.now() > deadline) throw new Error(`${name} did not become healthy: ${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A process's warnings and errors (pino lines), short: for the message of a failed assertion. */
const problems = (p: Proc) =>
  p
    .output()
    .split("\n")
    .filter((l) => /"level":(40|50|60)/.test(l) && !l.includes("ALLOW_PRIVATE_WEBHOOK_TARGETS"))
    .map((l) => {
      const { msg, err } = JSON.parse(l) as { msg?: string; err?: { message?: string; stack?: string } };
      const where = err?.stack?.split("\n").find((s) => s.includes("/src/"));
      return `${msg}: ${err?.message ?? ""} ${where?.trim() ?? ""}`;
    })
    .slice(-5)
    .join("\n");

const printed = (output: string, label: string) => {
  const m = new RegExp(`${label}:\\s+(\\S+)`).exec(output);
  if (!m) throw new Error(`no ${label} printed: ${output}`);
  return m[1]!;
};

interface Db {
  url: string;
  apiKey: string;
  publicKey: string;
  projectId: string;
}

let cluster: Awaited<ReturnType<typeof startPgCluster>>;
let redis: RedisServer;
let A: Proc;
let B: Proc;
let R: Proc;
/** database `two` (A and B) and database `one` (R) */
let two: Db;
let one: Db;

// ---- the webhook receiver (HTTPS, self-signed; the processes trust it via NODE_EXTRA_CA_CERTS) ---

interface Delivery {
  eventId: string;
  type: string;
  messageId: string;
}
const delivered: Delivery[] = [];
let inFlight = 0;
let maxInFlight = 0;
const tls = makeSelfSignedCert();
const receiver = https.createServer(tls, (req, res) => {
  req.on("error", () => {});
  res.on("error", () => {});
  let body = "";
  req.setEncoding("utf8");
  req.on("data", (c: string) => {
    body += c;
  });
  req.on("end", () => {
    const p = JSON.parse(body) as { id: string; type: string };
    delivered.push({ eventId: p.id, type: p.type, messageId: String(req.headers["webhook-id"]) });
    // Held a moment: deliveries of A's and B's workers overlap (each worker runs one job at a time).
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    setTimeout(() => {
      inFlight--;
      res.writeHead(200).end("ok");
    }, 40);
  });
});

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

  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const dirTwo = mkdtempSync(path.join(tmpdir(), "lift-two-"));
  const dirOne = mkdtempSync(path.join(tmpdir(), "lift-one-"));
  dirs.push(dirTwo, dirOne);
  const certFile = path.join(dirTwo, "receiver-ca.pem");
  writeFileSync(certFile, tls.cert);
  const common: NodeJS.ProcessEnv = {
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    RATE_LIMIT_READS: String(READ_LIMIT),
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
  killAll();
  await Promise.all(
    children.map((c) =>
      c.exitCode === null && c.signalCode === null ? new Promise((r) => c.once("close", r)) : null,
    ),
  );
  receiver.closeAllConnections();
  await new Promise((r) => receiver.close(r));
  await redis?.stop();
  await cluster?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function query<T = Record<string, unknown>>(url: string, text: string, values: unknown[] = []) {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query(text, values)).rows as T[];
  } finally {
    await c.end();
  }
}

// ---- the script: deterministic visitors, events, conversions and stitches -----------------------

/** Where a visit comes from: URL query and referrer (channels: direct, search, email, social …). */
const ACQUISITIONS: { query: string; referrer?: string }[] = [
  { query: "" },
  { query: "", referrer: "https://www.google.com/" },
  { query: "?utm_source=google&utm_medium=cpc&utm_campaign=spring", referrer: "https://www.google.com/" },
  { query: "?utm_source=newsletter&utm_medium=email&utm_campaign=may" },
  { query: "", referrer: "https://www.facebook.com/" },
  { query: "?utm_source=facebook&utm_medium=paid&utm_campaign=retarget" },
  { query: "", referrer: "https://news.ycombinator.com/item?id=1" },
  // a tab left open past the gap: a self-referral continues the visit's source
  { query: "", referrer: "https://shop.example.com/pricing" },
  { query: "?gclid=abc123" },
  { query: "", referrer: "https://chat.openai.com/" },
];
const PAGES = ["/", "/pricing", "/blog/launch", "/docs/start", "/checkout", "/features"];
/** Gaps between a visitor's events: some within a session (≤ 29 min), some past it (≥ 31 min). */
const GAPS = [1, 4, 12, 20, 29, 31, 45, 120, 420].map((m) => m * MIN);

interface EventBody {
  type: string;
  visitorId: string;
  url: string;
  referrer?: string;
  timestamp: string;
  data?: Record<string, unknown>;
}
type Step =
  | { kind: "event"; event: EventBody }
  /** two events of one visitor sent at once, one to each process (same page, a minute apart) */
  | { kind: "burst"; events: [EventBody, EventBody] }
  | { kind: "stitch"; email: string };

interface Visitor {
  id: string;
  steps: Step[];
  /** timestamps of the visitor's events in order */
  times: number[];
}

function script(now: number): Visitor[] {
  const rnd = mulberry32(18);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const visitors: Visitor[] = [];
  for (let i = 0; i < VISITORS; i++) {
    const id = `v${String(i).padStart(3, "0")}-${Math.floor(rnd() * 1e9).toString(36)}`;
    const n = 4 + Math.floor(rnd() * 7);
    const steps: Step[] = [];
    const times: number[] = [];
    let t = now - 4 * 86_400_000 + Math.floor(rnd() * 86_400_000);
    for (let j = 0; j < n; j++) {
      if (j > 0) t += pick(GAPS);
      const acq = pick(ACQUISITIONS);
      const url = `https://shop.example.com${pick(PAGES)}${acq.query}`;
      const r = rnd();
      const type =
        j === 0
          ? "pageview"
          : r < 0.55
            ? "pageview"
            : r < 0.7
              ? "click"
              : r < 0.8
                ? "signup"
                : r < 0.92
                  ? "purchase"
                  : "video_play";
      const event: EventBody = {
        type,
        visitorId: id,
        url,
        ...(acq.referrer ? { referrer: acq.referrer } : {}),
        timestamp: new Date(t).toISOString(),
        ...(type === "purchase" ? { data: { revenue: 10 + Math.floor(rnd() * 190) + 0.5 } } : {}),
      };
      times.push(t);
      // A burst: the same page clicked a minute later, both in flight at once (one on A, one on B),
      // not across midnight (a session's day is its first event's).
      const second = new Date(t + MIN);
      if (type === "pageview" && rnd() < 0.3 && second.getUTCDate() === new Date(t).getUTCDate()) {
        t += MIN;
        times.push(t);
        steps.push({
          kind: "burst",
          events: [event, { ...event, type: "click", timestamp: second.toISOString() }],
        });
      } else steps.push({ kind: "event", event });
      if (i % 2 === 0 && j === Math.floor(n / 2)) steps.push({ kind: "stitch", email: `${id}@example.com` });
    }
    visitors.push({ id, steps, times });
  }
  return visitors;
}

/** Sessions of a visitor by the rule itself: a new one after more than 30 minutes without events. */
const expectedSessions = (v: Visitor) =>
  1 + v.times.slice(1).filter((t, k) => t - v.times[k]! > SESSION_GAP_MS).length;

async function send(p: Proc, db: Db, event: EventBody): Promise<void> {
  const res = await call(p.base, "POST", "/api/events", {
    body: { ...event, projectKey: db.publicKey },
    headers: { "user-agent": BROWSER_UA },
  });
  expect(res.status, `${p.name}: ${JSON.stringify(res.body)}\n${problems(p)}`).toBe(200);
}

/**
 * Every visitor at once; each visitor's steps in order (a burst's two events together), the steps
 * going to `procs` in turn (A, B, A, B … or R, R, R …).
 */
async function ingest(visitors: Visitor[], procs: Proc[], db: Db): Promise<void> {
  await Promise.all(
    visitors.map(async (v, i) => {
      let k = i;
      const next = () => procs[k++ % procs.length]!;
      for (const step of v.steps) {
        if (step.kind === "event") await send(next(), db, step.event);
        else if (step.kind === "burst") await Promise.all(step.events.map((e) => send(next(), db, e)));
        else {
          const p = next();
          const res = await call(p.base, "POST", "/api/identity/stitch", {
            body: { projectKey: db.publicKey, visitorId: v.id, email: step.email },
          });
          expect(res.status, `${p.name}: ${JSON.stringify(res.body)}\n${problems(p)}`).toBe(200);
        }
      }
    }),
  );
}

// ---- reading the results ------------------------------------------------------------------------

interface Exported {
  visitorId: string;
  sessionId: string;
  type: string;
  url: string;
  timestamp: string;
  channel: string;
  source: string | null;
  origin: string;
}

async function get(p: Proc, key: string, url: string): Promise<any> {
  const res = await call(p.base, "GET", url, { key });
  expect(res.status, `${p.name} GET ${url}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
}

/**
 * Each visitor's sessions as structure (session ids are random): per session, its first event's
 * time, its events (time and type) in order, its channel and source.
 */
async function sessionsOf(p: Proc, key: string): Promise<Map<string, unknown[]>> {
  const res = await fetch(`${p.base}/api/export/events?format=ndjson`, { headers: { "x-api-key": key } });
  expect(res.status).toBe(200);
  const rows = (await res.text())
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Exported);
  const byVisitor = new Map<string, Map<string, Exported[]>>();
  for (const e of rows) {
    let sessions = byVisitor.get(e.visitorId);
    if (!sessions) {
      sessions = new Map();
      byVisitor.set(e.visitorId, sessions);
    }
    const list = sessions.get(e.sessionId);
    if (list) list.push(e);
    else sessions.set(e.sessionId, [e]);
  }
  const out = new Map<string, unknown[]>();
  for (const [visitorId, sessions] of byVisitor) {
    const shaped = [...sessions.values()].map((events) => {
      events.sort((a, b) => a.timestamp.localeCompare(b.timestamp) || a.type.localeCompare(b.type));
      return {
        start: events[0]!.timestamp,
        events: events.map((e) => `${e.timestamp} ${e.type}`),
        channels: [...new Set(events.map((e) => `${e.channel}/${e.source}`))],
      };
    });
    shaped.sort((a, b) => a.start.localeCompare(b.start));
    out.set(visitorId, shaped);
  }
  return out;
}

/** Numbers rounded (credits are fractions summed in storage order, which differs between databases). */
function rounded(v: unknown): unknown {
  if (typeof v === "number") return Math.round(v * 1e6) / 1e6;
  if (Array.isArray(v)) return v.map(rounded);
  if (v && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, rounded(x)]));
  return v;
}

const REPORTS = [
  "/api/analytics/summary",
  "/api/analytics/timeseries?period=7d",
  "/api/analytics/breakdown?by=channel&limit=100",
  "/api/analytics/breakdown?by=source&limit=100",
  "/api/analytics/breakdown?by=landing_page&limit=100",
  "/api/analytics/breakdown?by=event_type&limit=100",
  "/api/attribution/summary",
  "/api/attribution/summary?model=first_touch",
  "/api/attribution/summary?model=last_touch",
  "/api/attribution/summary?model=linear",
];

async function leadsOf(p: Proc, key: string) {
  const list = await get(p, key, "/api/leads?limit=200");
  expect(list.nextCursor).toBeNull();
  return (
    list.items as {
      email: string;
      firstTouch: unknown;
      visitorIds: string[];
      conversions: number;
      revenue: number;
    }[]
  )
    .map((l) => ({
      email: l.email,
      firstTouch: l.firstTouch,
      visitorIds: [...l.visitorIds].sort(),
      conversions: l.conversions,
      revenue: rounded(l.revenue),
    }))
    .sort((a, b) => a.email.localeCompare(b.email));
}

// ---- the tests ----------------------------------------------------------------------------------

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
    const port = (receiver.address() as AddressInfo).port;
    const wh = await call(B.base, "POST", "/api/webhooks", {
      key: two.apiKey,
      body: { url: `https://localhost:${port}/hook`, events: ["lead.created", "lead.updated"] },
    });
    expect(wh.status, JSON.stringify(wh.body)).toBe(201);
    webhookId = wh.body.id;

    visitors = script(Date.now());
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
        return delivered.length >= ids.size && Number(open[0]!.n) === 0;
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
    console.log(`two-processes: ${delivered.length} deliveries, at most ${maxInFlight} at once`);
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
