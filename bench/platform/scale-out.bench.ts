/**
 * Issue 18, "before": single-event ingest (POST /api/events, snippet format, one event per request,
 * 50 connections in all unless BENCH_CONNECTIONS says otherwise, a browser user agent) on
 *   sqlite-1   SQLite, one process (the embedded default; the baseline),
 *   pg-1       PostgreSQL, one process,
 *   pg-2-one   PostgreSQL, two processes on one database and one Redis, 25 connections each at
 *              the same time, both sending to one project (the same public key),
 *   pg-2-two   the same with two projects of one workspace (each process gets its own project's key).
 * Both processes see the same 5000 visitors (`v${i % 5000}`, as bench/events/single-ingest.bench.ts).
 * Each configuration of each round starts on a fresh database (`bench_scale_<pid>_<round>_<n>` on
 * BENCH_PG_URL, dropped afterwards) with fresh servers (bench/events/lift-server.ts: the app as
 * built, every event processor, no job workers), gets a 2 s warm-up and then one event of each
 * visitor per process (so every process has started every visitor's session whatever its rate),
 * then BENCH_SECONDS of load.
 * While a PostgreSQL configuration is loaded, a separate connection samples pg_stat_activity every
 * 250 ms: how many samples have a backend of the bench database waiting on a lock
 * (wait_event_type = 'Lock'), on what (wait_event), in which statement and behind which.
 * The order of the configurations rotates per round; figures are medians over rounds (the mean of
 * the two middle values for an even count).
 *
 * Run: npx tsx bench/platform/scale-out.bench.ts
 *   BENCH_SECONDS=10, BENCH_ROUNDS=2,
 *   BENCH_PG_URL=postgres://postgres@127.0.0.1:54329/postgres (a server where databases can be made;
 *     ?host=/tmp for its Unix socket),
 *   BENCH_REDIS_URL=redis://127.0.0.1:6379 or a socket path (database 1 unless it names one; only this
 *     benchmark's rate-limit keys are deleted afterwards, nothing is flushed),
 *   BENCH_EVENT_LIMIT=0 (RATE_LIMIT_EVENTS for every server: 0 = off, as in the other ingest
 *     benches; a large number puts the shared Redis counter on the ingest path),
 *   BENCH_CONFIGS=sqlite-1,pg-1,pg-2-one,pg-2-two (a subset), BENCH_CONNECTIONS=50 (in all),
 *   BENCH_PG_LOG=<path of the PostgreSQL server's log, readable here>: every lock wait over 1 ms in
 *     the bench database is logged (log_lock_waits, deadlock_timeout = 1 ms, set on that database),
 *     and the waits logged during the measured load are counted by table: exact where sampling
 *     catches only the waits under way every 250 ms,
 *   BENCH_MIX=pageviews, or growth: the project has a conversion goal on `purchase` and a running
 *     A/B experiment on it (bench/events/lift-server.ts), and of every 100 requests 10 expose a new
 *     visitor to a variant, 4 are purchases (data.revenue) of exposed visitors and 2 server batches
 *     naming a new lead (userId) for an exposed visitor (see `body`); the rest are pageviews. These
 *     write the rows all visitors share: the variant counters, attribution and lead rollups.
 *     pg-2-two sends pageviews only to the second project (it has no experiment).
 * Without a reachable PostgreSQL or Redis it prints why and exits 0 (so `npm run bench` passes).
 */
import { randomBytes } from "node:crypto";
import { closeSync, openSync, readSync, readFileSync, statSync } from "node:fs";
import os from "node:os";
import autocannon from "autocannon";
import pg from "pg";
import { loadConfig } from "../../src/config.js";
import { openDatabase } from "../../src/platform/db/index.js";
import { createProject } from "../../src/modules/workspace/service.js";
import { type LoadResult, loadEvents } from "../events/servers.js";
import { LIFT_NODE_ARGS, type Running, serverProblems, startNode, stopServers } from "../lib/servers.js";
import { benchRedisUrl, deleteRateLimitKeys, redisUnreachable } from "../lib/redis.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const WARMUP_SECONDS = 2;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const VISITORS = 5000;
const SAMPLE_MS = 250;
const PG_URL = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:54329/postgres";
const REDIS_URL = benchRedisUrl();
const EVENT_LIMIT = process.env.BENCH_EVENT_LIMIT ?? "0";
const PG_LOG = process.env.BENCH_PG_LOG;
const MIX = process.env.BENCH_MIX ?? "pageviews";
if (MIX !== "pageviews" && MIX !== "growth") throw new Error(`unknown BENCH_MIX ${MIX}`);
const SCRIPT = "bench/events/lift-server.ts";
const BROWSER_UA = "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0"; // as bench/events/servers.ts

const ALL = ["sqlite-1", "pg-1", "pg-2-one", "pg-2-two"] as const;
type ConfigName = (typeof ALL)[number];
const CONFIGS = (process.env.BENCH_CONFIGS?.split(",").map((s) => s.trim()) ?? [...ALL]) as ConfigName[];
for (const c of CONFIGS) if (!ALL.includes(c)) throw new Error(`unknown configuration ${c}`);

const LABEL: Record<ConfigName, string> = {
  "sqlite-1": "SQLite, 1 process",
  "pg-1": "PostgreSQL, 1 process",
  "pg-2-one": "PostgreSQL, 2 processes, 1 project",
  "pg-2-two": "PostgreSQL, 2 processes, 2 projects",
};

/**
 * Request `i` to a target: a pageview of one of the 5000 returning visitors, or with
 * BENCH_MIX=growth per 100 requests also 10 exposures of new visitors (this call's own, so the two
 * processes never share one), 4 purchases by visitors exposed 4 requests before, 2 server batches
 * naming a new lead for a visitor exposed 8 requests before.
 */
const body = (target: { key: string; experimentId?: string }) => {
  const tag = randomBytes(4).toString("hex");
  return (i: number) => {
    const page = {
      type: "pageview",
      visitorId: `v${i % VISITORS}`,
      projectKey: target.key,
      url: `https://shop.example.com/p/${i % 100}?utm_source=newsletter&utm_medium=email`,
      referrer: "https://www.google.com/",
      data: { plan: "pro", i } as Record<string, unknown>,
    };
    const kind = i % 100;
    if (MIX === "pageviews" || kind >= 16 || !target.experimentId) return JSON.stringify(page);
    if (kind < 10) {
      const variant = i % 2 ? "control" : "treatment";
      const data = { experimentId: target.experimentId, variant };
      return JSON.stringify({ ...page, visitorId: `${tag}-${i}`, type: "$exposure", data });
    }
    if (kind < 14) {
      const data = { revenue: 20 + (i % 7) };
      return JSON.stringify({ ...page, visitorId: `${tag}-${i - 4}`, type: "purchase", data });
    }
    return JSON.stringify({
      projectKey: target.key,
      userId: `${tag}-u${i}`,
      visitorId: `${tag}-${i - 8}`,
      events: [{ type: "signup", url: page.url }],
    });
  };
};

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

const bump = (m: Map<string, number>, k: string, n = 1) => m.set(k, (m.get(k) ?? 0) + n);
const top = (m: Map<string, number>, n: number) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n);
const oneLine = (s: string | null) => (s ?? "").replace(/\s+/g, " ").trim().slice(0, 80);

// ---------------------------------------------------------------- pg_stat_activity sampling

interface Waits {
  samples: number;
  /** samples where at least one backend of the bench database waited on a lock */
  lockSamples: number;
  /** waiting-backend observations by wait_event (tuple, transactionid, advisory, relation, …) */
  byEvent: Map<string, number>;
  /** … by wait_event and the waiting statement (first 80 characters) */
  byQuery: Map<string, number>;
  /** … by the statement of a backend holding it up (pg_blocking_pids) */
  byBlocker: Map<string, number>;
  /** active backends by wait (type:event, "CPU" when none) and backends idle in a transaction:
   * where a flush's time goes */
  active: Map<string, number>;
}

const newWaits = (): Waits => ({
  samples: 0,
  lockSamples: 0,
  byEvent: new Map(),
  byQuery: new Map(),
  byBlocker: new Map(),
  active: new Map(),
});

function addWaits(into: Waits, w: Waits): void {
  into.samples += w.samples;
  into.lockSamples += w.lockSamples;
  for (const k of ["byEvent", "byQuery", "byBlocker", "active"] as const)
    for (const [q, n] of w[k]) bump(into[k], q, n);
}

/** Samples pg_stat_activity for `database` on its own connection until `stop` is called. */
async function sampleLocks(database: string): Promise<{ stop: () => Promise<Waits> }> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  const w = newWaits();
  let running = true;
  const loop = (async () => {
    while (running) {
      const t0 = Date.now();
      const { rows } = await client.query<{
        wait_event_type: string | null;
        wait_event: string | null;
        state: string | null;
        query: string | null;
        blockers: string | null;
      }>(
        `select a.wait_event_type, a.wait_event, a.state, left(a.query, 200) as query,
           case when a.wait_event_type = 'Lock' then
             (select string_agg(left(b.query, 200), ' || ') from pg_stat_activity b
               where b.pid = any(pg_blocking_pids(a.pid))) end as blockers
         from pg_stat_activity a
         where a.datname = $1 and a.backend_type = 'client backend'`,
        [database],
      );
      w.samples++;
      let locked = false;
      for (const r of rows) {
        // idle in transaction: a flush waiting on its Node process between statements
        if (r.state === "idle in transaction") bump(w.active, "idle in transaction");
        else if (r.state === "active")
          bump(w.active, r.wait_event_type ? `${r.wait_event_type}:${r.wait_event}` : "CPU");
        if (r.wait_event_type !== "Lock") continue;
        locked = true;
        bump(w.byEvent, r.wait_event ?? "?");
        bump(w.byQuery, `${r.wait_event}  ${oneLine(r.query)}`);
        for (const b of (r.blockers ?? "?").split(" || ")) bump(w.byBlocker, oneLine(b));
      }
      if (locked) w.lockSamples++;
      await new Promise((r) => setTimeout(r, Math.max(0, SAMPLE_MS - (Date.now() - t0))));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      await client.end();
      return w;
    },
  };
}

// ---------------------------------------------------------------- CPU time (Linux /proc)

const TICK_MS = 10; // USER_HZ = 100 on Linux

/** user + system CPU time of a process in ms (0 when it is gone or /proc is missing). */
function cpuMs(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(f[11]) + Number(f[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** The bench database's client backends (PostgreSQL runs here, on this machine). */
async function backendPids(database: string): Promise<number[]> {
  const { rows } = await admin.query<{ pid: number }>(
    "select pid from pg_stat_activity where datname = $1 and backend_type = 'client backend'",
    [database],
  );
  return rows.map((r) => r.pid);
}

// ---------------------------------------------------------------- servers per configuration

interface Setup {
  targets: { url: string; key: string; experimentId?: string }[];
  servers: Running[];
  database?: string;
}

const admin = new pg.Client({ connectionString: PG_URL });
const created: string[] = [];
const secretKey = randomBytes(32).toString("base64url");

function databaseUrl(name: string): string {
  const u = new URL(PG_URL);
  u.pathname = `/${name}`;
  return u.toString();
}

async function startServer(
  env: NodeJS.ProcessEnv,
): Promise<{ server: Running; key?: string; experimentId?: string }> {
  const server = await startNode(
    SCRIPT,
    { BENCH_NO_PROCESSORS: "0", BENCH_MIX: MIX, RATE_LIMIT_EVENTS: EVENT_LIMIT, ...env },
    "/healthz",
    LIFT_NODE_ARGS,
  );
  const key = /public key:\s+(svc_pk_\S+)/.exec(server.output())?.[1];
  const experimentId = /experiment:\s+(\S+)/.exec(server.output())?.[1];
  return { server, key, experimentId };
}

/** A second project in the first one's workspace, through the workspace service on the bench database. */
async function secondProjectKey(url: string): Promise<string> {
  const handle = openDatabase(loadConfig({ DATABASE_URL: url }, { dataDir: os.tmpdir(), secretKey }));
  try {
    const ws = await handle.db.selectFrom("workspaces").select("id").executeTakeFirstOrThrow();
    return (await createProject(handle.db, ws.id, "Second project")).publicKey;
  } finally {
    await handle.close();
  }
}

async function setUp(config: ConfigName, round: number, n: number): Promise<Setup> {
  if (config === "sqlite-1") {
    const { server, key, experimentId } = await startServer({ DATABASE_URL: "", REDIS_URL: "" });
    if (!key) throw new Error(`no public key printed: ${server.output()}`);
    return { targets: [{ url: `${server.base}/api/events`, key, experimentId }], servers: [server] };
  }
  const database = `bench_scale_${process.pid}_${round}_${n}`;
  await admin.query(`create database ${database}`);
  created.push(database);
  if (PG_LOG)
    for (const setting of ["log_lock_waits = on", "deadlock_timeout = '1ms'"])
      await admin.query(`alter database ${database} set ${setting}`);
  const env = { DATABASE_URL: databaseUrl(database), REDIS_URL, SECRET_KEY: secretKey };
  const setup: Setup = { targets: [], servers: [], database };
  try {
    // The second process starts after the first has migrated and made the workspace.
    // Distinct rollup shards (ROLLUP_SHARD), as a deployment would set them.
    const a = await startServer({ ...env, ROLLUP_SHARD: "1" });
    setup.servers.push(a.server);
    if (!a.key) throw new Error(`no public key printed: ${a.server.output()}`);
    setup.targets.push({ url: `${a.server.base}/api/events`, key: a.key, experimentId: a.experimentId });
    if (config === "pg-1") return setup;
    const keyB = config === "pg-2-one" ? a.key : await secondProjectKey(env.DATABASE_URL);
    const b = await startServer({ ...env, ROLLUP_SHARD: "2" });
    setup.servers.push(b.server);
    // pg-2-two: the second project has no experiment (its exposures are ignored).
    setup.targets.push({
      url: `${b.server.base}/api/events`,
      key: keyB,
      experimentId: config === "pg-2-one" ? a.experimentId : undefined,
    });
    return setup;
  } catch (err) {
    await tearDown(setup);
    throw err;
  }
}

const tearDown = (setup: Setup) => stopServers(setup.servers, setup.database, admin);

// ---------------------------------------------------------------- one measurement

interface Measured {
  rps: number;
  perProcess: number[];
  /** the worse of the processes' percentiles */
  p50: number;
  p99: number;
  non2xx: number;
  /** CPU use during the measured load, in % of one core: the Lift processes, the bench
   * database's PostgreSQL backends (those alive at the end; pools keep theirs), this process */
  cpu: { lift: number; postgres: number; loader: number };
  /** BENCH_PG_LOG: lock waits over 1 ms logged during the measured load, by table */
  logged?: Map<string, number>;
  /** lock-wait samples during the measured load (PostgreSQL) */
  waits?: Waits;
  /** the same during the first-visits part of the warm-up */
  firstWaits?: Waits;
  /** transactions committed in the bench database per second (≈ group commits; PostgreSQL) */
  commitsPerSecond: number;
  problems: Map<string, number>;
  /** distinct sessions and visitors stored (PostgreSQL) */
  sessions?: { sessions: number; visitors: number };
}

async function countSessions(database: string): Promise<{ sessions: number; visitors: number }> {
  const c = new pg.Client({ connectionString: databaseUrl(database) });
  await c.connect();
  try {
    const row = (
      await c.query<{ sessions: string; visitors: string }>(
        "select count(*) as sessions, count(distinct visitor_id) as visitors from (select distinct visitor_id, session_id from events where coalesce(session_id, '') <> '') s",
      )
    ).rows[0]!;
    return { sessions: Number(row.sessions), visitors: Number(row.visitors) };
  } finally {
    await c.end();
  }
}

/** Loads every target at once, the connections split evenly. */
async function loadAll(setup: Setup, seconds: number): Promise<LoadResult[]> {
  const per = CONNECTIONS / setup.targets.length;
  return Promise.all(setup.targets.map((t) => loadEvents(t.url, per, seconds, body(t))));
}

/**
 * The rest of the warm-up: every process gets one event of each of the 5000 visitors, so each has
 * started (and stored) every visitor's session before the measurement, whatever its rate; the
 * measured events then continue sessions in every configuration (a slow configuration would
 * otherwise spend part of its measurement on first visits, which cost more).
 */
async function firstVisits(setup: Setup): Promise<void> {
  const per = CONNECTIONS / setup.targets.length;
  await Promise.all(
    setup.targets.map((t) => {
      let i = 0;
      const next = body(t);
      return autocannon({
        url: t.url,
        connections: per,
        amount: VISITORS,
        requests: [
          {
            method: "POST",
            setupRequest: (req) => ({
              ...req,
              headers: { "content-type": "application/json", "user-agent": BROWSER_UA },
              body: next(i++),
            }),
          },
        ],
      });
    }),
  );
}

async function measure(config: ConfigName, round: number, n: number): Promise<Measured> {
  const setup = await setUp(config, round, n);
  try {
    await loadAll(setup, WARMUP_SECONDS);
    const firstSampler = setup.database ? await sampleLocks(setup.database) : undefined;
    await firstVisits(setup);
    const firstWaits = await firstSampler?.stop();
    const sampler = setup.database ? await sampleLocks(setup.database) : undefined;
    const pids = () => (setup.database ? backendPids(setup.database) : Promise.resolve([]));
    const liftCpu = () => setup.servers.reduce((s, x) => s + cpuMs(x.child.pid), 0);
    const commits = async () =>
      setup.database
        ? Number(
            (
              await admin.query<{ n: string }>(
                "select xact_commit as n from pg_stat_database where datname = $1",
                [setup.database],
              )
            ).rows[0]!.n,
          )
        : 0;
    const commitsBefore = await commits();
    const pgBefore = new Map((await pids()).map((p) => [p, cpuMs(p)]));
    const liftBefore = liftCpu();
    const loaderBefore = process.cpuUsage();
    const logFrom = PG_LOG && setup.database ? statSync(PG_LOG).size : undefined;
    const t0 = Date.now();
    const results = await loadAll(setup, SECONDS);
    const wall = Date.now() - t0;
    const logged = logFrom === undefined ? undefined : loggedWaits(PG_LOG!, logFrom);
    const loader = process.cpuUsage(loaderBefore);
    const lift = liftCpu() - liftBefore;
    const postgres = (await pids()).reduce((s, p) => s + cpuMs(p) - (pgBefore.get(p) ?? 0), 0);
    const waits = await sampler?.stop();
    await new Promise((r) => setTimeout(r, 1200)); // backends report their counts within 1 s
    const committed = (await commits()) - commitsBefore;
    const pct = (ms: number) => (100 * ms) / wall;
    // Every event of the run is within 30 minutes of its visitor's previous one: one session per
    // visitor is right; more means the processes split visitors' sessions. (Server events have
    // no session: '' is not counted.)
    const sessions = setup.database ? await countSessions(setup.database) : undefined;
    return {
      sessions,
      cpu: { lift: pct(lift), postgres: pct(postgres), loader: pct((loader.user + loader.system) / 1000) },
      rps: results.reduce((s, r) => s + r.rps, 0),
      perProcess: results.map((r) => r.rps),
      p50: Math.max(...results.map((r) => r.p50)),
      p99: Math.max(...results.map((r) => r.p99)),
      non2xx: results.reduce((s, r) => s + r.non2xx, 0),
      waits,
      logged,
      firstWaits,
      commitsPerSecond: (committed * 1000) / wall,
      problems: serverProblems(setup.servers),
    };
  } finally {
    await tearDown(setup);
  }
}

/**
 * Lock waits logged since byte `from` of the server log, by the table named in the wait's context
 * ("while inserting index tuple … in relation …", "while updating tuple …").
 */
function loggedWaits(file: string, from: number): Map<string, number> {
  const size = statSync(file).size;
  const buf = Buffer.alloc(Math.max(0, size - from));
  const fd = openSync(file, "r");
  try {
    readSync(fd, buf, 0, buf.length, from);
  } finally {
    closeSync(fd);
  }
  const out = new Map<string, number>();
  const lines = buf.toString("utf8").split("\n");
  lines.forEach((line, i) => {
    if (!/still waiting for/.test(line)) return;
    const context = lines.slice(i + 1, i + 4).find((l) => /CONTEXT:/.test(l));
    bump(out, /relation "([^"]+)"/.exec(context ?? "")?.[1] ?? "(no table named)");
  });
  return out;
}

// ---------------------------------------------------------------- main

async function reachable(): Promise<string | null> {
  try {
    await admin.connect();
  } catch (err) {
    return `no PostgreSQL at ${PG_URL} (${(err as Error).message})`;
  }
  return redisUnreachable(REDIS_URL);
}

const why = await reachable();
if (why) {
  console.log(`scale-out bench skipped: ${why}`);
  await admin.end().catch(() => {});
  process.exit(0);
}

const fmtLoad = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(", ");
const started = new Date();
const loadBefore = fmtLoad();
const { rows: ver } = await admin.query<{ v: string }>("select current_setting('server_version') as v");
const { rows: settings } = await admin.query<{ name: string; setting: string }>(
  "select name, setting from pg_settings where name in ('fsync', 'synchronous_commit', 'shared_buffers', 'max_connections')",
);
console.log(
  `${started.toISOString()} load average ${loadBefore}; ${os.cpus().length} cores; Node ${process.version}; ` +
    `PostgreSQL ${ver[0]!.v} (${settings.map((s) => `${s.name}=${s.setting}`).join(", ")}); Redis ${REDIS_URL}; ` +
    `RATE_LIMIT_EVENTS=${EVENT_LIMIT}; BENCH_MIX=${MIX}`,
);
console.log(
  `${ROUNDS} rounds x (${WARMUP_SECONDS} s warm-up + ${VISITORS} first visits per process + ${SECONDS} s), ${CONNECTIONS} connections in all\n`,
);

const results = new Map<ConfigName, Measured[]>(CONFIGS.map((c) => [c, []]));
try {
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < CONFIGS.length; k++) {
      const c = CONFIGS[(r + k) % CONFIGS.length]!;
      const m = await measure(c, r, k);
      results.get(c)!.push(m);
      const waits = m.waits ? `  lock-wait samples ${m.waits.lockSamples}/${m.waits.samples}` : "";
      const split = m.perProcess.length > 1 ? ` (${m.perProcess.map((x) => x.toFixed(0)).join(" + ")})` : "";
      console.log(
        `round ${r + 1} ${c.padEnd(9)} ${m.rps.toFixed(0)} events/s${split}  p50 ${m.p50} ms  p99 ${m.p99} ms  non-2xx ${m.non2xx}${waits}`,
      );
      console.log(
        `    CPU (% of one core): Lift ${m.cpu.lift.toFixed(0)}, PostgreSQL backends ${m.cpu.postgres.toFixed(0)}, load generator ${m.cpu.loader.toFixed(0)}` +
          (m.commitsPerSecond
            ? `; ${m.commitsPerSecond.toFixed(0)} commits/s, ${(m.rps / m.commitsPerSecond).toFixed(1)} events per commit`
            : ""),
      );
      if (m.sessions)
        console.log(`    ${m.sessions.sessions} sessions stored for ${m.sessions.visitors} visitors`);
      if (m.logged) {
        const total = [...m.logged.values()].reduce((a, b) => a + b, 0);
        const byTable = top(m.logged, 8).map(([t, n]) => `${t} ${n}`);
        console.log(
          `    lock waits over 1 ms (server log): ${total}${total ? ` (${byTable.join(", ")})` : ""}`,
        );
      }
      for (const [msg, n] of m.problems) console.log(`    server log x${n}: ${msg}`);
      if (m.non2xx > 0) console.log(`    WARNING: ${m.non2xx} non-2xx responses`);
    }
  }
} finally {
  for (const d of created) await admin.query(`drop database if exists ${d} with (force)`).catch(() => {});
  const deleted = await deleteRateLimitKeys(REDIS_URL).catch(() => 0);
  await admin.end();
  if (deleted) console.log(`(deleted ${deleted} rate-limit keys from ${REDIS_URL})`);
}

// ---------------------------------------------------------------- report

const med = new Map([...results].map(([c, ms]) => [c, median(ms.map((m) => m.rps))]));
console.log(
  `\nfinished ${new Date().toISOString()}, load average ${loadBefore} before, ${fmtLoad()} after\n`,
);
console.log(
  "| configuration | events/s per round | events/s (median) | p50 | p99 | non-2xx | samples with a lock wait |",
);
console.log("| --- | --- | --- | --- | --- | --- | --- |");
const cpu: string[] = [];
for (const [c, ms] of results) {
  const rounds = ms
    .map((m) =>
      m.perProcess.length > 1
        ? `${m.rps.toFixed(0)} (${m.perProcess.map((x) => x.toFixed(0)).join("+")})`
        : m.rps.toFixed(0),
    )
    .join(" / ");
  const w = newWaits();
  for (const m of ms) if (m.waits) addWaits(w, m.waits);
  const locks =
    c === "sqlite-1"
      ? "–"
      : `${w.lockSamples}/${w.samples} (${ms.map((m) => `${m.waits!.lockSamples}/${m.waits!.samples}`).join(", ")})`;
  // CPU µs per event: Lift + PostgreSQL backends (% of a core × 10 000 µs/s / events/s)
  const perEvent = median(ms.map((m) => ((m.cpu.lift + m.cpu.postgres) * 10_000) / m.rps));
  const perCommit = c === "sqlite-1" ? "–" : median(ms.map((m) => m.rps / m.commitsPerSecond)).toFixed(1);
  cpu.push(
    `| ${LABEL[c]} | ${(["lift", "postgres", "loader"] as const).map((k) => `${median(ms.map((m) => m.cpu[k])).toFixed(0)}%`).join(" | ")} | ${perEvent.toFixed(0)} µs | ${perCommit} |`,
  );
  console.log(
    `| ${LABEL[c]} | ${rounds} | ${med.get(c)!.toFixed(0)} | ${median(ms.map((m) => m.p50))} ms | ${median(ms.map((m) => m.p99))} ms | ${ms.reduce((s, m) => s + m.non2xx, 0)} | ${locks} |`,
  );
}

console.log(
  "\n| configuration | CPU: Lift processes | PostgreSQL backends | load generator | Lift + PostgreSQL CPU per event | events per commit |",
);
console.log("| --- | --- | --- | --- | --- | --- |");
for (const line of cpu) console.log(line);

/** Median over rounds of the per-round ratio a/b (both measured in the same round). */
function ratio(a: ConfigName, b: ConfigName): string {
  const ra = results.get(a);
  const rb = results.get(b);
  if (!ra || !rb) return "–";
  const per = ra.map((m, i) => m.rps / rb[i]!.rps);
  return `${median(per).toFixed(2)} (rounds ${per.map((x) => x.toFixed(2)).join(", ")})`;
}
console.log(`\nPG-1 / SQLite-1:              ${ratio("pg-1", "sqlite-1")}`);
console.log(`PG-2 (one project) / PG-1:    ${ratio("pg-2-one", "pg-1")}`);
console.log(`PG-2 (two projects) / PG-1:   ${ratio("pg-2-two", "pg-1")}`);

function printWaits(title: string, w: Waits): void {
  console.log(`\n${title}: ${w.lockSamples} of ${w.samples} samples had a lock wait`);
  if (w.byEvent.size)
    console.log(
      `  waiting backends by wait_event: ${top(w.byEvent, 10)
        .map(([k, n]) => `${k} ${n}`)
        .join(", ")}`,
    );
  for (const [q, n] of top(w.byQuery, 8)) console.log(`  waits ${String(n).padStart(4)}  ${q}`);
  // The blocker's statement at the sample: it took the row lock earlier in its flush.
  for (const [q, n] of top(w.byBlocker, 5)) console.log(`  held up by ${String(n).padStart(4)}  ${q}`);
  console.log(
    `  backends by state/wait (all samples): ${top(w.active, 8)
      .map(([k, n]) => `${k} ${n}`)
      .join(", ")}`,
  );
}

for (const [c, ms] of results) {
  if (c === "sqlite-1") continue;
  const w = newWaits();
  const first = newWaits();
  for (const m of ms) {
    addWaits(w, m.waits!);
    addWaits(first, m.firstWaits!);
  }
  printWaits(`${LABEL[c]}, measured`, w);
  printWaits(`${LABEL[c]}, first visits (warm-up)`, first);
}
