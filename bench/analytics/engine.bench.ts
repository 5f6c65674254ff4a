/**
 * The analytics engine against bare DuckDB, same data, same run: the raw-data questions through
 * Lift (fastify.inject: routing, auth, validation, the read pool, the engine thread, shaping), then
 * the same questions written by hand against the engine's DuckDB file opened directly, the
 * baseline. Also: how long the engine takes to copy N stored events, bytes per event in each
 * store, and /healthz while the heaviest question runs.
 * Seed: seed-explore.ts (10 events per visitor in 2 sessions over 120 days, /pricing in every
 * session, 10% buy, 20% of visitors paired into leads).
 * Run: npx tsx bench/analytics/engine.bench.ts                      (BENCH_EVENTS=2000000)
 *      BENCH_EVENTS=10000000 npx tsx bench/analytics/engine.bench.ts
 * BENCH_RUNS (default 5) timed requests per line after a warm-up.
 */
import { statSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { buildApp } from "../../src/app.js";
import { provisionWorkspace } from "../../src/modules/workspace/bootstrap.js";
import { benchConfig } from "../lib/config.js";
import { seedExplore } from "./seed-explore.js";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 2_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const DAY = 86_400_000;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

const config = benchConfig("engine");
const enginePath = path.join(config.dataDir, "analytics.duckdb");
const app = await buildApp(config, { logger: false });
await app.ready();

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const s = performance.now();
  const value = await fn();
  return { ms: performance.now() - s, value };
}

/** p50 and p95 of RUNS timed calls after a warm-up one, and the warm-up's answer. */
async function measure<T>(fn: () => Promise<T>): Promise<{ p50: number; p95: number; first: T }> {
  const first = await fn();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) times.push((await timed(fn)).ms);
  times.sort((a, b) => a - b);
  const q = (f: number) => times[Math.min(times.length - 1, Math.floor(f * times.length))]!;
  return { p50: q(0.5), p95: q(0.95), first };
}

const now = Date.now();
const from = now - 30 * DAY;
const p = await provisionWorkspace(app.db, { name: "bench", email: "bench@example.com" });
const projectId = p.project.id;
let t = performance.now();
const seeded = await seedExplore(app.db, false, app.dbHandle.sqlite, projectId, EVENTS, now);
app.dbHandle.sqlite!.exec("analyze");
console.log(
  `SQLite: seeded ${seeded.events.toLocaleString("en")} events, ${seeded.visitors.toLocaleString("en")} visitors in ${((performance.now() - t) / 1000).toFixed(0)} s`,
);

t = performance.now();
const copied = await (app.deps.engine as any).sync();
const copyS = (performance.now() - t) / 1000;
const rowBytes = statSync(config.sqlitePath!).size;
const engineBytes = statSync(enginePath).size;
console.log(
  `engine copy: ${copied.toLocaleString("en")} events in ${copyS.toFixed(0)} s (${Math.round(copied / copyS).toLocaleString("en")} events/s); bytes per event: SQLite ${Math.round(rowBytes / EVENTS)}, DuckDB ${Math.round(engineBytes / EVENTS)}`,
);

const call = async (method: "GET" | "POST", url: string, payload?: unknown) => {
  const res = await app.inject({
    method,
    url,
    headers: { "x-api-key": p.key.rawKey },
    payload: payload as never,
  });
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return JSON.parse(res.body);
};
const f = (filter: unknown) => encodeURIComponent(JSON.stringify(filter));

/** The questions, as Lift is asked them. */
const lift: Record<string, () => Promise<unknown>> = {
  "summary 30d, device is mobile": () =>
    call(
      "GET",
      `/api/analytics/summary?period=30d&filter=${f([{ key: "device", op: "is", value: "mobile" }])}`,
    ),
  "summary 30d, page contains /pricing": () =>
    call(
      "GET",
      `/api/analytics/summary?period=30d&filter=${f([{ key: "page", op: "contains", value: "/pricing" }])}`,
    ),
  "funnel 30d: /pricing → signup → purchase": () =>
    call("POST", "/api/analytics/funnel", {
      steps: [
        { eventType: "pageview", urlPattern: "*/pricing" },
        { eventType: "signup" },
        { eventType: "purchase" },
      ],
      windowDays: 14,
      period: "30d",
    }),
  "weekly retention 30d": () => call("GET", "/api/analytics/retention?period=30d&interval=week"),
  "cohort: visited /pricing in 30 days, no purchase": () =>
    call("POST", "/api/cohorts/preview", {
      definition: {
        conditions: [
          {
            type: "event",
            event: "pageview",
            withinDays: 30,
            where: [{ key: "page", op: "contains", value: "/pricing" }],
          },
          { type: "event", event: "purchase", withinDays: 30, did: false },
        ],
      },
    }),
  "paths after /, 3 steps, 30d": () =>
    call("POST", "/api/analytics/paths", {
      start: { event: "pageview", page: "*/" },
      steps: 3,
      period: "30d",
    }),
  "trends 30d: pageviews per day, total + unique people": () =>
    call("POST", "/api/analytics/trends", {
      period: "30d",
      series: [{ event: "pageview" }, { event: "pageview", measure: "unique_people" }],
    }),
  "trends 90d: WAU by channel, purchases ÷ signups": () =>
    call("POST", "/api/analytics/trends", {
      period: "90d",
      series: [{ event: "pageview", measure: "wau" }, { event: "purchase" }, { event: "signup" }],
      breakdown: { property: "channel", limit: 10 },
      formulas: [{ expression: "B / C * 100" }],
    }),
  "trends 30d weekly: sum + p90 of revenue, compare": () =>
    call("POST", "/api/analytics/trends", {
      period: "30d",
      interval: "week",
      series: [
        { event: "purchase", measure: "sum", property: "revenue" },
        { event: "purchase", measure: "p90", property: "revenue" },
      ],
      compare: true,
    }),
};

/** The same questions by hand, against the engine's file (the baseline). */
const person = "case when l.lead_id is not null then 'l:' || l.lead_id else 'v:' || e.visitor_id end";
const bare: Record<string, string> = {
  "summary 30d, device is mobile": `select count(distinct s.visitor_id) from sessions s
    where s.project_id = $p and s.ts >= $from and s.ts < $to and s.device = 'mobile'`,
  "summary 30d, page contains /pricing": `select count(distinct e.visitor_id) from events e
    where e.project_id = $p and e.ts >= $from and e.ts < $to and not e.is_bot and e.url ilike '%/pricing%'`,
  "funnel 30d: /pricing → signup → purchase": `with l as (select visitor_id, lead_id from links where project_id = $p),
    s as (select ${person} as person, e.ts,
      case when e.type = 'pageview' and e.url like '%/pricing' then 1 when e.type = 'signup' then 2 when e.type = 'purchase' then 3 end as step
      from events e left join l on l.visitor_id = e.visitor_id
      where e.project_id = $p and e.ts >= $from and e.ts < $to + 14 * 86400000 and not e.is_bot
        and (e.type in ('signup', 'purchase') or (e.type = 'pageview' and e.url like '%/pricing'))),
    a as (select person, min(ts) as t1 from s where step = 1 and ts < $to group by person),
    b as (select a.person, a.t1, min(s.ts) as t2 from a join s on s.person = a.person and s.step = 2 and s.ts > a.t1 and s.ts <= a.t1 + 14 * 86400000 group by 1, 2),
    c as (select b.person from b join s on s.person = b.person and s.step = 3 and s.ts > b.t2 and s.ts <= b.t1 + 14 * 86400000 group by 1)
    select (select count(*) from a), (select count(*) from b), (select count(*) from c)`,
  "weekly retention 30d": `with l as (select visitor_id, lead_id from links where project_id = $p),
    act as (select distinct ${person} as person, date_trunc('week', make_timestamp(e.ts * 1000)) as wk
      from events e left join l on l.visitor_id = e.visitor_id where e.project_id = $p and not e.is_bot and e.ts < $to),
    firsts as (select person, min(wk) as cohort from act group by person)
    select f.cohort, date_diff('week', f.cohort, a.wk) as k, count(*) from firsts f join act a on a.person = f.person
    where f.cohort >= make_timestamp($from * 1000) group by 1, 2`,
  "cohort: visited /pricing in 30 days, no purchase": `with l as (select visitor_id, lead_id from links where project_id = $p),
    pe as (select ${person} as person, e.type, e.url from events e left join l on l.visitor_id = e.visitor_id
      where e.project_id = $p and e.ts >= $from and e.ts < $to and not e.is_bot)
    select count(*) from (select person from pe where type = 'pageview' and url ilike '%/pricing%'
      except select person from pe where type = 'purchase')`,
  "paths after /, 3 steps, 30d": `with e as (select session_id, ts, id, case when type = 'pageview' then regexp_extract(url, '^[a-z]+://[^/]*(/[^?#]*)', 1) else type end as node
      from events where project_id = $p and ts >= $from and ts < $to and not is_bot and session_id <> ''),
    d as (select *, lag(node) over (partition by session_id order by ts, id) as prev from e),
    n as (select session_id, node, ts, id, row_number() over (partition by session_id order by ts, id) as k from d where prev is null or prev <> node),
    st as (select session_id, min(k) as k0 from n where node = '/' group by session_id)
    select n.k - st.k0 as step, node, count(*) from n join st using (session_id) where n.k > st.k0 and n.k <= st.k0 + 3 group by 1, 2`,
  "trends 30d: pageviews per day, total + unique people": `with l as (select visitor_id, lead_id from links where project_id = $p)
    select e.ts // 86400000 as d, count(*), count(distinct ${person}) from events e left join l on l.visitor_id = e.visitor_id
    where e.project_id = $p and e.ts >= $from and e.ts < $to and not e.is_bot and e.type = 'pageview' group by 1`,
};

const liftTimes: Record<string, { p50: number; p95: number }> = {};
for (const [label, fn] of Object.entries(lift)) {
  const m = await measure(fn);
  liftTimes[label] = m;
  console.log(
    `Lift  ${label.padEnd(52)} p50 ${m.p50.toFixed(0).padStart(6)} ms  p95 ${m.p95.toFixed(0).padStart(6)} ms`,
  );
}

// /healthz while the heaviest question (paths) runs back to back.
let running = true;
const heavy = (async () => {
  while (running) await lift["paths after /, 3 steps, 30d"]!();
})();
const health: number[] = [];
const until = performance.now() + 10_000;
while (performance.now() < until) {
  health.push((await timed(() => app.inject({ method: "GET", url: "/healthz" }))).ms);
  await new Promise((r) => setTimeout(r, 50));
}
running = false;
await heavy;
health.sort((a, b) => a - b);
console.log(
  `/healthz while paths run: ${health.length} probes, p50 ${health[health.length >> 1]!.toFixed(1)} ms, max ${health[health.length - 1]!.toFixed(1)} ms`,
);
await app.close();

// The baseline: the engine's file, opened directly, the same questions by hand.
const instance = await DuckDBInstance.create(enginePath, {
  memory_limit: `${config.engine.memoryMb}MB`,
  threads: String(config.engine.threads),
});
const c = await instance.connect();
console.log(`\nload average ${load()}`);
console.log(`${"question".padEnd(52)}  Lift p50   DuckDB p50   Lift ÷ DuckDB`);
for (const [label, text] of Object.entries(bare)) {
  const bound = text
    .replaceAll("$p", `'${projectId}'`)
    .replaceAll("$from", String(from))
    .replaceAll("$to", String(now));
  const m = await measure(() => c.runAndReadAll(bound));
  const l = liftTimes[label]!;
  console.log(
    `${label.padEnd(52)} ${l.p50.toFixed(0).padStart(7)} ms ${m.p50.toFixed(0).padStart(9)} ms ${(l.p50 / m.p50).toFixed(2).padStart(12)}`,
  );
}
c.closeSync();
instance.closeSync();
