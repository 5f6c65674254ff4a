/**
 * Issue 18: a long mixed load — 80% ingest, 15% reads, 5% writes — on
 *   sqlite-1   SQLite, one process,
 *   pg-2       PostgreSQL, two processes on one database and one Redis (ROLLUP_SHARD 1 and 2),
 *              the connections split evenly between them, one project (one public key, one API key).
 * Each request is drawn by weight:
 *   ingest  POST /api/events, snippet format, a browser user agent, 5000 visitors; 2% of them are
 *           `purchase` events with data.revenue, which the conversion goal made first counts;
 *   reads   with the API key: analytics summary / timeseries / breakdown by channel, leads,
 *           experiments, goals, conversion goals, attribution summary (each checked for 200 before
 *           the load; not GET /api/beliefs: it lists every belief with all its evidence, unpaginated,
 *           and the writes below add to both, so it would grow with the run);
 *   writes  with the API key: create a belief, PATCH a goal, PATCH a conversion goal (one that no
 *           event matches), link a visitor to a lead (POST /api/identity, always the same lead per
 *           visitor).
 * Ingest rate limiting is off (RATE_LIMIT_EVENTS=0); the read and write limits are on but set far
 * above this load (BENCH_READ_LIMIT / BENCH_WRITE_LIMIT per minute and key; on PostgreSQL the
 * counters are in Redis), so any 429 is unintended.
 * Reported per class: requests, req/s, p50/p99 latency, non-2xx by status (and connection errors);
 * each Lift process's RSS (VmRSS from /proc/<pid>/status) every 10 s, printed per minute with
 * the change from minute 2 to the end.
 * Servers: this file started with MIXED_LOAD_SERVER=1 (the app as bench/events/lift-server.ts
 * builds it — every event processor, job workers on — printing the public key and the API key).
 *
 * Run: npx tsx bench/platform/mixed-load.bench.ts
 *   BENCH_SECONDS=600 (per configuration, after a 10 s warm-up that is not measured),
 *   BENCH_CONNECTIONS=50, BENCH_CONFIGS=sqlite-1,pg-2,
 *   BENCH_PG_URL=postgres://postgres@127.0.0.1:54329/postgres (a fresh database is made and dropped),
 *   BENCH_REDIS_URL=redis://127.0.0.1:6379 (database 1 unless the URL names one; only
 *     rate-limit keys are deleted afterwards), BENCH_READ_LIMIT=1000000, BENCH_WRITE_LIMIT=1000000.
 * Without a reachable PostgreSQL or Redis the pg-2 configuration is skipped.
 * BENCH_MEMORY_LOG=<path prefix>: each server writes its memory every second to
 *   <prefix>.<port>.jsonl (see logMemory) — what an RSS peak holds.
 */
import http from "node:http";
import os from "node:os";
import { readFileSync } from "node:fs";
import { benchRedisUrl, deleteRateLimitKeys, redisUnreachable } from "../lib/redis.js";

if (process.env.MIXED_LOAD_SERVER === "1") {
  await serve();
} else {
  await main();
}

/** The server side: Lift as src/main.ts builds it, printing both keys of the first workspace. */
async function serve(): Promise<void> {
  const { buildApp } = await import("../../src/app.js");
  const { loadConfig } = await import("../../src/config.js");
  const { bootstrapIfEmpty } = await import("../../src/modules/workspace/bootstrap.js");
  const config = loadConfig();
  const app = await buildApp(config);
  const created = await bootstrapIfEmpty(app.db, {
    adminEmail: "bench@example.com",
    adminPassword: "bench bench bench",
  });
  if (created)
    process.stdout.write(`public key: ${created.project.publicKey}\napi key: ${created.key.rawKey}\n`);
  await app.listen({ port: config.port, host: config.host });
  if (process.env.BENCH_MEMORY_LOG) await logMemory(`${process.env.BENCH_MEMORY_LOG}.${config.port}.jsonl`);
  process.on("SIGTERM", () => {
    app.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

/**
 * BENCH_MEMORY_LOG=<path>: every second, one JSON line of where this process's memory is — RSS,
 * V8's heap (used and committed, per space), memory outside the heap (Buffers, native) — and the
 * count of full (mark-compact) collections so far, to tell what an RSS peak holds: live data,
 * garbage awaiting a full collection, or memory outside V8.
 */
async function logMemory(file: string): Promise<void> {
  const { appendFileSync } = await import("node:fs");
  const v8 = await import("node:v8");
  const { PerformanceObserver, constants } = await import("node:perf_hooks");
  let fullGcs = 0;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if (
        (e as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR
      )
        fullGcs++;
  }).observe({ entryTypes: ["gc"] });
  const mb = (n: number) => Math.round(n / 1048576);
  const start = Date.now();
  setInterval(() => {
    const m = process.memoryUsage();
    const spaces = Object.fromEntries(
      v8.getHeapSpaceStatistics().map((s) => [s.space_name, [mb(s.space_used_size), mb(s.space_size)]]),
    );
    const line = {
      t: Math.round((Date.now() - start) / 1000),
      rss: mb(m.rss),
      heapUsed: mb(m.heapUsed),
      heapTotal: mb(m.heapTotal),
      external: mb(m.external),
      arrayBuffers: mb(m.arrayBuffers),
      fullGcs,
      spaces,
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  }, 1000).unref();
}

async function main(): Promise<void> {
  const { randomBytes } = await import("node:crypto");
  const pg = (await import("pg")).default;
  const { LIFT_NODE_ARGS, serverProblems, startNode, stopServers } = await import("../lib/servers.js");
  type Running = Awaited<ReturnType<typeof startNode>>;

  const SECONDS = Number(process.env.BENCH_SECONDS ?? 600);
  const WARMUP_SECONDS = 10;
  const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
  const VISITORS = 5000;
  const RSS_EVERY_MS = 10_000;
  const PG_URL = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:54329/postgres";
  const REDIS_URL = benchRedisUrl();
  const READ_LIMIT = process.env.BENCH_READ_LIMIT ?? "1000000";
  const WRITE_LIMIT = process.env.BENCH_WRITE_LIMIT ?? "1000000";
  const SCRIPT = "bench/platform/mixed-load.bench.ts";
  const BROWSER_UA = "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0";
  const ALL = ["sqlite-1", "pg-2"] as const;
  type ConfigName = (typeof ALL)[number];
  const CONFIGS = (process.env.BENCH_CONFIGS?.split(",").map((s) => s.trim()) ?? [...ALL]) as ConfigName[];
  for (const c of CONFIGS) if (!ALL.includes(c)) throw new Error(`unknown configuration ${c}`);

  const CLASSES = ["ingest", "reads", "writes"] as const;
  type Class = (typeof CLASSES)[number];
  const WEIGHTS: [Class, number][] = [
    ["ingest", 0.8],
    ["reads", 0.15],
    ["writes", 0.05],
  ];

  // ---------------------------------------------------------------- requests

  interface Req {
    cls: Class;
    name: string;
    method: "GET" | "POST" | "PATCH";
    path: string;
    body?: string;
    auth: boolean;
  }
  interface Fixture {
    publicKey: string;
    apiKey: string;
    goalId: string;
    conversionGoalId: string;
  }

  const READS = [
    "/api/analytics/summary?period=30d",
    "/api/analytics/timeseries?period=30d",
    "/api/analytics/breakdown?by=channel&period=30d",
    "/api/leads",
    "/api/experiments",
    "/api/goals",
    "/api/conversion-goals",
    "/api/attribution/summary?period=30d",
  ];

  let seq = 0;
  const rnd = (n: number) => Math.floor(Math.random() * n);

  function ingest(f: Fixture): Req {
    const i = seq++;
    const purchase = i % 50 === 0; // 2% purchases
    const visitorId = `v${rnd(VISITORS)}`;
    return {
      cls: "ingest",
      name: purchase ? "POST /api/events (purchase)" : "POST /api/events",
      method: "POST",
      path: "/api/events",
      auth: false,
      body: JSON.stringify(
        purchase
          ? {
              type: "purchase",
              visitorId,
              projectKey: f.publicKey,
              url: "https://shop.example.com/checkout/done",
              data: { revenue: 49, currency: "EUR", i },
            }
          : {
              type: "pageview",
              visitorId,
              projectKey: f.publicKey,
              url: `https://shop.example.com/p/${i % 100}?utm_source=newsletter&utm_medium=email`,
              referrer: "https://www.google.com/",
              data: { plan: "pro", i },
            },
      ),
    };
  }

  function read(): Req {
    const path = READS[rnd(READS.length)]!;
    return { cls: "reads", name: `GET ${path.split("?")[0]}`, method: "GET", path, auth: true };
  }

  function write(f: Fixture): Req {
    const i = seq++;
    switch (rnd(4)) {
      case 0:
        return {
          cls: "writes",
          name: "POST /api/beliefs",
          method: "POST",
          path: "/api/beliefs",
          auth: true,
          body: JSON.stringify({ statement: `Belief ${i}`, confidence: 0.5, tags: ["bench"] }),
        };
      case 1:
        return {
          cls: "writes",
          name: "PATCH /api/goals",
          method: "PATCH",
          path: "/api/goals",
          auth: true,
          body: JSON.stringify({ id: f.goalId, target: 1000 + (i % 1000) }),
        };
      case 2:
        // not POST /api/beliefs/:id/update-confidence: it answers the belief with all its evidence,
        // so on one belief its cost grows with the run (a first 10-minute run showed it)
        return {
          cls: "writes",
          name: "PATCH /api/conversion-goals",
          method: "PATCH",
          path: "/api/conversion-goals",
          auth: true,
          body: JSON.stringify({ id: f.conversionGoalId, name: `Signup ${i % 100}` }),
        };
      default: {
        // the same lead for a visitor every time: a link is repeated, never contradicted
        const v = rnd(VISITORS);
        return {
          cls: "writes",
          name: "POST /api/identity",
          method: "POST",
          path: "/api/identity",
          auth: true,
          body: JSON.stringify({ visitorId: `v${v}`, leadId: `lead-${v}`, source: "bench" }),
        };
      }
    }
  }

  function pick(f: Fixture): Req {
    let x = Math.random();
    for (const [cls, w] of WEIGHTS) {
      if (x < w) return cls === "ingest" ? ingest(f) : cls === "reads" ? read() : write(f);
      x -= w;
    }
    return ingest(f);
  }

  // ---------------------------------------------------------------- HTTP

  interface Target {
    host: string;
    port: number;
    agent: http.Agent;
  }
  interface Res {
    status: number;
    body: string;
  }

  function send(t: Target, f: Fixture, r: Req): Promise<Res> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { "user-agent": BROWSER_UA };
      if (r.body !== undefined) {
        headers["content-type"] = "application/json";
        headers["content-length"] = String(Buffer.byteLength(r.body));
      }
      if (r.auth) headers.authorization = `Bearer ${f.apiKey}`;
      const req = http.request(
        { host: t.host, port: t.port, method: r.method, path: r.path, headers, agent: t.agent },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (c) => (body += c));
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.setTimeout(30_000, () => req.destroy(new Error("timeout after 30 s")));
      req.end(r.body);
    });
  }

  // ---------------------------------------------------------------- statistics

  const BUCKET_MS = 0.1;
  const BUCKETS = 300_001; // up to 30 s
  class Stats {
    count = 0;
    hist = new Uint32Array(BUCKETS);
    statuses = new Map<string, number>();
    bad = 0;
    add(ms: number, status: string, ok: boolean): void {
      this.count++;
      this.hist[Math.min(BUCKETS - 1, Math.round(ms / BUCKET_MS))]!++;
      if (!ok) {
        this.bad++;
        this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
      }
    }
    pct(p: number): number {
      const want = Math.ceil(this.count * p);
      let seen = 0;
      for (let b = 0; b < BUCKETS; b++) {
        seen += this.hist[b]!;
        if (seen >= want && seen > 0) return b * BUCKET_MS;
      }
      return Number.NaN;
    }
  }

  // ---------------------------------------------------------------- servers

  const rssKb = (pid: number | undefined): number => {
    try {
      return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      return 0;
    }
  };

  const admin = new pg.Client({ connectionString: PG_URL });
  let adminUp = false;
  const secretKey = randomBytes(32).toString("base64url");

  function databaseUrl(name: string): string {
    const u = new URL(PG_URL);
    u.pathname = `/${name}`;
    return u.toString();
  }

  async function startServer(env: NodeJS.ProcessEnv): Promise<Running> {
    return startNode(
      SCRIPT,
      {
        MIXED_LOAD_SERVER: "1",
        RATE_LIMIT_EVENTS: "0",
        RATE_LIMIT_READS: READ_LIMIT,
        RATE_LIMIT_WRITES: WRITE_LIMIT,
        LOG_LEVEL: "warn",
        ...env,
      },
      "/healthz",
      LIFT_NODE_ARGS,
    );
  }

  const keysOf = (s: Running) => ({
    publicKey: /public key:\s+(\S+)/.exec(s.output())?.[1],
    apiKey: /api key:\s+(\S+)/.exec(s.output())?.[1],
  });

  interface Setup {
    servers: Running[];
    database?: string;
    publicKey: string;
    apiKey: string;
  }

  async function setUp(config: ConfigName): Promise<Setup> {
    if (config === "sqlite-1") {
      const s = await startServer({ DATABASE_URL: "", REDIS_URL: "" });
      const k = keysOf(s);
      if (!k.publicKey || !k.apiKey) throw new Error(`no keys printed: ${s.output()}`);
      return { servers: [s], publicKey: k.publicKey, apiKey: k.apiKey };
    }
    const database = `bench_mixed_${process.pid}`;
    await admin.query(`create database ${database}`);
    const env = { DATABASE_URL: databaseUrl(database), REDIS_URL, SECRET_KEY: secretKey };
    const servers: Running[] = [];
    try {
      const a = await startServer({ ...env, ROLLUP_SHARD: "1" });
      servers.push(a);
      const k = keysOf(a);
      if (!k.publicKey || !k.apiKey) throw new Error(`no keys printed: ${a.output()}`);
      servers.push(await startServer({ ...env, ROLLUP_SHARD: "2" }));
      return { servers, database, publicKey: k.publicKey, apiKey: k.apiKey };
    } catch (err) {
      await Promise.all(servers.map((s) => s.stop()));
      await admin.query(`drop database if exists ${database} with (force)`);
      throw err;
    }
  }

  const tearDown = (s: Setup) => stopServers(s.servers, s.database, admin);

  // ---------------------------------------------------------------- one configuration

  interface Measured {
    wall: number;
    stats: Map<Class, Stats>;
    byName: Map<string, Stats>;
    errors: Map<string, number>;
    /** per process: [seconds since the start of the measured load, RSS in MB] */
    rss: [number, number][][];
    problems: Map<string, number>;
    /** PostgreSQL: every index with its scans during the whole run (the index review) */
    indexes?: IndexUse[];
  }

  interface IndexUse {
    table: string;
    index: string;
    scans: number;
    mb: number;
  }

  /** Index scans since the database was made (pg_stat_user_indexes; partitions summed by table). */
  async function indexUse(database: string): Promise<IndexUse[]> {
    const c = new pg.Client({ connectionString: databaseUrl(database) });
    await c.connect();
    try {
      await new Promise((r) => setTimeout(r, 1200)); // backends report their counts within 1 s
      const { rows } = await c.query<{ t: string; i: string; scans: string; bytes: string }>(
        `select coalesce(pt.relname, s.relname) as t, coalesce(pi.relname, s.indexrelname) as i,
           sum(s.idx_scan) as scans, sum(pg_relation_size(s.indexrelid)) as bytes
         from pg_stat_user_indexes s
         left join pg_inherits ih on ih.inhrelid = s.indexrelid
         left join pg_class pi on pi.oid = ih.inhparent
         left join pg_inherits th on th.inhrelid = s.relid
         left join pg_class pt on pt.oid = th.inhparent
         group by 1, 2 order by 3 desc, 1, 2`,
      );
      return rows.map((r) => ({
        table: r.t,
        index: r.i,
        scans: Number(r.scans),
        mb: Number(r.bytes) / 1048576,
      }));
    } finally {
      await c.end();
    }
  }

  async function run(config: ConfigName): Promise<Measured> {
    const setup = await setUp(config);
    try {
      const targets: Target[] = setup.servers.map((s) => {
        const u = new URL(s.base);
        return {
          host: u.hostname,
          port: Number(u.port),
          agent: new http.Agent({
            keepAlive: true,
            maxSockets: Math.ceil(CONNECTIONS / setup.servers.length),
          }),
        };
      });
      const t0 = targets[0]!;
      const pre: Fixture = {
        publicKey: setup.publicKey,
        apiKey: setup.apiKey,
        goalId: "",
        conversionGoalId: "",
      };
      const must = async (r: Req, t = t0): Promise<Record<string, unknown>> => {
        const res = await send(t, pre, r);
        if (res.status !== 200 && res.status !== 201)
          throw new Error(`${r.method} ${r.path} answered ${res.status}: ${res.body.slice(0, 300)}`);
        return JSON.parse(res.body) as Record<string, unknown>;
      };
      const post = (path: string, body: unknown, method: Req["method"] = "POST"): Req => ({
        cls: "writes",
        name: path,
        method,
        path,
        auth: true,
        body: JSON.stringify(body),
      });
      await must(post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" }));
      const deadline = new Date(Date.now() + 90 * 86_400_000).toISOString().slice(0, 10);
      const goal = await must(post("/api/goals", { metric: "revenue", target: 1000, deadline }));
      const signup = await must(post("/api/conversion-goals", { name: "Signup", eventType: "signup" }));
      const f: Fixture = { ...pre, goalId: String(goal.id), conversionGoalId: String(signup.id) };
      // every route of the mix answers 2xx, on every process
      for (const t of targets) {
        for (const path of READS)
          await must({ cls: "reads", name: path, method: "GET", path, auth: true }, t);
        for (let k = 0; k < 8; k++) await must(write(f), t);
        await must(ingest(f), t);
      }

      let phase: "warmup" | "measure" | "stop" = "warmup";
      const stats = new Map<Class, Stats>(CLASSES.map((c) => [c, new Stats()]));
      const byName = new Map<string, Stats>();
      const errors = new Map<string, number>();
      const worker = async (t: Target) => {
        while (phase !== "stop") {
          const r = pick(f);
          const start = performance.now();
          let status = "error";
          let ok = false;
          try {
            const res = await send(t, f, r);
            status = String(res.status);
            ok = res.status >= 200 && res.status < 300;
          } catch (err) {
            const m = (err as Error).message;
            errors.set(m, (errors.get(m) ?? 0) + 1);
          }
          if (phase !== "measure") continue;
          const ms = performance.now() - start;
          stats.get(r.cls)!.add(ms, status, ok);
          const s = byName.get(r.name) ?? new Stats();
          byName.set(r.name, s);
          s.add(ms, status, ok);
        }
      };
      const workers = Array.from({ length: CONNECTIONS }, (_, k) => worker(targets[k % targets.length]!));
      await new Promise((r) => setTimeout(r, WARMUP_SECONDS * 1000));
      errors.clear();
      phase = "measure";
      const start = Date.now();
      const rss: [number, number][][] = setup.servers.map(() => []);
      const sample = () =>
        setup.servers.forEach((s, k) => {
          rss[k]!.push([Math.round((Date.now() - start) / 1000), rssKb(s.child.pid) / 1024]);
        });
      sample();
      const timer = setInterval(sample, RSS_EVERY_MS);
      const progress = setInterval(() => {
        const n = CLASSES.map((c) => stats.get(c)!.count);
        const el = (Date.now() - start) / 1000;
        console.log(
          `  ${config} ${el.toFixed(0)} s: ${((n[0]! + n[1]! + n[2]!) / el).toFixed(0)} req/s, ` +
            `RSS ${rss.map((x) => x.at(-1)![1].toFixed(0)).join(" + ")} MB, non-2xx ${CLASSES.map((c) => stats.get(c)!.bad).join("/")}`,
        );
      }, 60_000);
      await new Promise((r) => setTimeout(r, SECONDS * 1000));
      const wall = (Date.now() - start) / 1000;
      phase = "stop";
      clearInterval(timer);
      clearInterval(progress);
      sample();
      await Promise.all(workers);
      for (const t of targets) t.agent.destroy();
      const indexes = setup.database ? await indexUse(setup.database) : undefined;
      return { wall, stats, byName, errors, rss, problems: serverProblems(setup.servers), indexes };
    } finally {
      await tearDown(setup);
    }
  }

  // ---------------------------------------------------------------- main

  async function pgReachable(): Promise<string | null> {
    try {
      await admin.connect();
      adminUp = true;
    } catch (err) {
      return `no PostgreSQL at ${PG_URL} (${(err as Error).message})`;
    }
    return redisUnreachable(REDIS_URL);
  }

  const fmtLoad = () =>
    os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(", ");
  const loadBefore = fmtLoad();
  const began = new Date();
  const configs = [...CONFIGS];
  if (configs.includes("pg-2")) {
    const why = await pgReachable();
    if (why) {
      console.log(`pg-2 skipped: ${why}`);
      configs.splice(configs.indexOf("pg-2"), 1);
    }
  }
  console.log(
    `${began.toISOString()} load average ${loadBefore}; ${os.cpus().length} cores; Node ${process.version}; ` +
      `${CONNECTIONS} connections; ${WARMUP_SECONDS} s warm-up + ${SECONDS} s per configuration; ` +
      `mix ${WEIGHTS.map(([c, w]) => `${c} ${w * 100}%`).join(", ")}; RATE_LIMIT_EVENTS=0, ` +
      `RATE_LIMIT_READS=${READ_LIMIT}, RATE_LIMIT_WRITES=${WRITE_LIMIT}\n`,
  );

  const ms = (x: number) => `${x.toFixed(1)} ms`;
  const statusList = (m: Map<string, number>) =>
    m.size
      ? [...m]
          .sort((a, b) => b[1] - a[1])
          .map(([k, n]) => `${n}× ${k}`)
          .join(", ")
      : "0";
  try {
    for (const c of configs) {
      console.log(`${new Date().toISOString()} ${c} starting (load ${fmtLoad()})`);
      const m = await run(c);
      const total = CLASSES.reduce((s, k) => s + m.stats.get(k)!.count, 0);
      console.log(`\n### ${c} (${m.wall.toFixed(0)} s measured, load ${fmtLoad()})\n`);
      console.log("| class | requests | share | req/s | p50 | p99 | non-2xx |");
      console.log("| --- | --- | --- | --- | --- | --- | --- |");
      for (const k of CLASSES) {
        const s = m.stats.get(k)!;
        console.log(
          `| ${k} | ${s.count} | ${((100 * s.count) / total).toFixed(1)}% | ${(s.count / m.wall).toFixed(0)} | ${ms(s.pct(0.5))} | ${ms(s.pct(0.99))} | ${statusList(s.statuses)} |`,
        );
      }
      const all = new Stats();
      for (const k of CLASSES) {
        const s = m.stats.get(k)!;
        all.count += s.count;
        for (let b = 0; b < BUCKETS; b++) all.hist[b]! += s.hist[b]!;
        all.bad += s.bad;
      }
      console.log(
        `| all | ${total} | 100% | ${(total / m.wall).toFixed(0)} | ${ms(all.pct(0.5))} | ${ms(all.pct(0.99))} | ${all.bad} |`,
      );
      console.log("\nper route:");
      for (const [name, s] of [...m.byName].sort((a, b) => b[1].count - a[1].count))
        console.log(
          `  ${name.padEnd(42)} ${String(s.count).padStart(8)}  p50 ${ms(s.pct(0.5)).padStart(9)}  p99 ${ms(s.pct(0.99)).padStart(9)}  non-2xx ${statusList(s.statuses)}`,
        );
      if (m.errors.size) console.log(`connection errors: ${statusList(m.errors)}`);
      for (const [msg, n] of m.problems) console.log(`server log x${n}: ${msg}`);
      console.log("\nRSS (MB) per minute of the measured load, per process:");
      m.rss.forEach((series, p) => {
        const perMin = series.filter(([t]) => t % 60 < RSS_EVERY_MS / 1000 || t === series.at(-1)![0]);
        console.log(
          `  process ${p + 1}: ${perMin.map(([t, v]) => `${(t / 60).toFixed(1)}m ${v.toFixed(0)}`).join(", ")}`,
        );
        const after2 = series.filter(([t]) => t >= 120);
        if (after2.length) {
          const vs = after2.map(([, v]) => v);
          const first = vs[0]!;
          const last = vs.at(-1)!;
          console.log(
            `    minute 2 → end: ${first.toFixed(0)} → ${last.toFixed(0)} MB (${last >= first ? "+" : ""}${(last - first).toFixed(0)} MB, ${((100 * (last - first)) / first).toFixed(1)}%); min ${Math.min(...vs).toFixed(0)}, max ${Math.max(...vs).toFixed(0)} MB after minute 2`,
          );
        }
      });
      if (m.indexes) {
        console.log("\nindexes (PostgreSQL), scans during the whole run:");
        for (const x of m.indexes)
          console.log(
            `  ${`${x.table}.${x.index}`.padEnd(64)} ${String(x.scans).padStart(10)}  ${x.mb.toFixed(1)} MB`,
          );
      }
      console.log("");
    }
  } finally {
    if (adminUp) {
      await admin.end();
      const deleted = await deleteRateLimitKeys(REDIS_URL).catch(() => 0);
      if (deleted) console.log(`(deleted ${deleted} rate-limit keys from ${REDIS_URL})`);
    }
  }
  console.log(
    `finished ${new Date().toISOString()} (started ${began.toISOString()}), load average ${loadBefore} before, ${fmtLoad()} after`,
  );
}
