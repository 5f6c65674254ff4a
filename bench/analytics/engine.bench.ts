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
 * BENCH_RUNS (default 5) timed requests per line after a warm-up; BENCH_ONLY=summary,funnel asks
 * only the questions whose label holds one of those words (and skips /healthz unless paths is asked).
 * BENCH_DIR=<dir> keeps the seeded store there, and a later run with the same BENCH_DIR asks the
 * questions of it again without seeding (before/after a change in one sitting; the copy catches up).
 * BENCH_ANSWERS=<file> writes Lift's answers (the warm-up's, by label) there as JSON, to compare
 * two runs' answers after a change to a query.
 */
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import path from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { buildApp } from "../../src/app.js";
import { provisionWorkspace } from "../../src/modules/workspace/bootstrap.js";
import { createProjectKey } from "../../src/modules/workspace/project-keys.js";
import { benchConfig } from "../lib/config.js";
import { quantile, timedRuns } from "../lib/timing.js";
import { seedExplore } from "./seed-explore.js";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 2_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const DAY = 86_400_000;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

const keep = process.env.BENCH_DIR;
const reuse = keep !== undefined && existsSync(path.join(keep, "bench.db"));
if (keep) mkdirSync(keep, { recursive: true });
const base = benchConfig("engine");
const config = keep ? { ...base, dataDir: keep, sqlitePath: path.join(keep, "bench.db") } : base;
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
  const times = await timedRuns(fn, RUNS);
  return { p50: quantile(times, 0.5), p95: quantile(times, 0.95), first };
}

const now = Date.now();
// Lift's "30d": today and the 29 days before it, whole UTC days; the baselines ask of the same range.
const from = (Math.floor(now / DAY) - 29) * DAY;
const to = (Math.floor(now / DAY) + 1) * DAY;
let projectId: string;
let rawKey: string;
if (reuse) {
  const project = await app.db
    .selectFrom("projects")
    .select(["id", "workspace_id"])
    .executeTakeFirstOrThrow();
  projectId = project.id;
  rawKey = (await createProjectKey(app.db, project.workspace_id, project.id, "bench")).rawKey;
  console.log(`SQLite: reusing the store in ${keep}`);
} else {
  const p = await provisionWorkspace(app.db, { name: "bench", email: "bench@example.com" });
  projectId = p.project.id;
  rawKey = p.key.rawKey;
  const t = performance.now();
  const seeded = await seedExplore(app.db, false, app.dbHandle.sqlite, projectId, EVENTS, now);
  app.dbHandle.sqlite!.exec("analyze");
  console.log(
    `SQLite: seeded ${seeded.events.toLocaleString("en")} events, ${seeded.visitors.toLocaleString("en")} visitors in ${((performance.now() - t) / 1000).toFixed(0)} s`,
  );
}

const t = performance.now();
const copied = await (app.deps.engine as any).sync();
const copyS = (performance.now() - t) / 1000;
const rowBytes = statSync(config.sqlitePath!).size;
const engineBytes = statSync(enginePath).size;
console.log(
  `engine copy: ${copied.toLocaleString("en")} events in ${copyS.toFixed(0)} s (${Math.round(copied / copyS).toLocaleString("en")} events/s); bytes per event: SQLite ${Math.round(rowBytes / EVENTS)}, DuckDB ${Math.round(engineBytes / EVENTS)}; load average ${load()}, ENGINE_THREADS ${config.engine.threads}`,
);

const call = async (method: "GET" | "POST", url: string, payload?: unknown) => {
  const res = await app.inject({
    method,
    url,
    headers: { "x-api-key": rawKey },
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
  "web 30d: every list, channel × device": () =>
    call("POST", "/api/analytics/web", { period: "30d", breakdown: ["channel", "device"] }),
};

/** The same questions by hand, against the engine's file (the baseline). */
const person = "case when l.lead_id is not null then 'l:' || l.lead_id else 'v:' || e.visitor_id end";
/** A filtered summary's figures by hand: `visits` selects (visitor_id, channel, server), `conv` keeps conversions `c` (first touch `ft`). */
const summaryBare = (
  visits: string,
  conv: string,
) => `with l as (select visitor_id, lead_id from links where project_id = $p),
    v as (select x.visitor_id, x.channel, x.server, case when l.lead_id is not null then 'l:' || l.lead_id else 'v:' || x.visitor_id end as person
      from (${visits}) x left join l on l.visitor_id = x.visitor_id),
    c as (select c.event_id, c.counted, c.revenue, c.channel, case when l.lead_id is not null then 'l:' || l.lead_id else 'v:' || c.visitor_id end as person
      from conversions c left join l on l.visitor_id = c.visitor_id where c.project_id = $p and c.ts >= $from and c.ts < $to),
    who as (select person from v union select person from c),
    theirs as (select substr(person, 3) as visitor_id, person from who where person like 'v:%'
      union all select l.visitor_id, 'l:' || l.lead_id from l where 'l:' || l.lead_id in (select person from who)),
    ft as (select t.person, arg_min(s.channel, (s.ts, s.session_id)) as channel, arg_min(s.device, (s.ts, s.session_id)) as device
      from sessions s join theirs t on t.visitor_id = s.visitor_id where s.project_id = $p group by t.person),
    conv as (select c.* from c left join ft on ft.person = c.person where ${conv}),
    buyers as (select distinct person from conv where counted > 0 and person <> 'v:'),
    pop as (select p.person, p.person in (select person from buyers) as converted, ft.channel as ft_channel
      from (select distinct visitor_id, person from v) p left join ft on ft.person = p.person)
    select (select count(*) from pop) as visitors, (select count(*) from pop where converted) as converted,
      (select coalesce(sum(counted), 0) from conv) as conversions, (select coalesce(sum(revenue), 0) from conv) as revenue,
      (select list({k: channel, n: n}) from (select channel, count(distinct visitor_id) as n from v where not server group by 1)) as traffic,
      (select list({k: channel, n: n}) from (select channel, sum(counted) as n from conv group by 1)) as counted,
      (select list({k: coalesce(ft_channel, '(none)'), n: n, m: m}) from (select ft_channel, count(*) as n, count(*) filter (where converted) as m from pop group by 1)) as basis`;
const bare: Record<string, string> = {
  // A summary's figures as Lift defines them (conversion-model.ts, engine/selection.ts): its
  // visitors, those whose person converted, conversions and revenue, visitors and conversions per
  // channel, and the rate's basis per first-touch channel (each person's earliest session ever).
  // Leads created in the period are left out: identity's store knows when a lead was created.
  "summary 30d, device is mobile": summaryBare(
    `select s.visitor_id, s.channel, false as server from sessions s
      where s.project_id = $p and s.ts >= $from and s.ts < $to and s.device = 'mobile'`,
    "ft.device = 'mobile'",
  ),
  "summary 30d, page contains /pricing": summaryBare(
    `select e.visitor_id, e.channel, e.is_server as server from events e
      where e.project_id = $p and e.ts >= $from and e.ts < $to and not e.is_bot and e.visitor_id <> '' and e.url ilike '%/pricing%'`,
    `c.event_id in (select id from events where project_id = $p and ts >= $from and ts < $to and not is_bot and url ilike '%/pricing%')`,
  ),
  // Every entry in the period is tried (the next signup after it, the next purchase after that,
  // within 14 days of the entry); each person counts by the entry reaching furthest, the earliest
  // among equals; medians between steps.
  "funnel 30d: /pricing → signup → purchase": `with l as (select visitor_id, lead_id from links where project_id = $p),
    s as (select ${person} as person, e.ts, e.id,
      case when e.type = 'pageview' and e.url like '%/pricing' then 1 when e.type = 'signup' then 2 when e.type = 'purchase' then 3 end as step
      from events e left join l on l.visitor_id = e.visitor_id
      where e.project_id = $p and e.ts >= $from and e.ts < $to + 14 * 86400000 and not e.is_bot and e.visitor_id <> ''
        and (e.type in ('signup', 'purchase') or (e.type = 'pageview' and e.url like '%/pricing'))),
    a as (select person, ts as t0, id from s where step = 1 and ts < $to),
    b as (select a.person, a.id, min(s.ts) as t1 from a join s on s.person = a.person and s.step = 2 and s.ts > a.t0 and s.ts <= a.t0 + 14 * 86400000 group by 1, 2),
    c as (select b.person, b.id, min(s.ts) as t2 from a join b using (person, id) join s on s.person = b.person and s.step = 3 and s.ts > b.t1 and s.ts <= a.t0 + 14 * 86400000 group by 1, 2),
    best as (select a.person, arg_min({t0: a.t0, t1: b.t1, t2: c.t2}, (case when c.t2 is not null then 0 when b.t1 is not null then 1 else 2 end, a.t0, a.id)) as r
      from a left join b using (person, id) left join c using (person, id) group by a.person)
    select count(*) as c0, count(r.t1) as c1, median(r.t1 - r.t0) as m1, count(r.t2) as c2, median(r.t2 - r.t1) as m2 from best`,
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

/** Whether Lift's answer and the baseline's agree, on the figures both give. */
type Row = Record<string, unknown>;
const figures = (lift: Row, keys: string[], bare: Row, bareKeys: string[]) => {
  const a = keys.map((k) => Number(lift[k]));
  const b = bareKeys.map((k) => Number(bare[k]));
  return a.every((x, i) => Math.abs(x - b[i]!) < 1e-6) ? "yes" : `NO: ${a.join("/")} vs ${b.join("/")}`;
};
const summaryAgrees = (l: Row, b: Row) =>
  figures(l, ["visitors", "convertedVisitors", "conversions", "revenue"], b, [
    "visitors",
    "converted",
    "conversions",
    "revenue",
  ]);
const agree: Record<string, (lift: Row, bare: Row) => string> = {
  "summary 30d, device is mobile": summaryAgrees,
  "summary 30d, page contains /pricing": summaryAgrees,
  "funnel 30d: /pricing → signup → purchase": (l, b) => {
    const steps = l.steps as Row[];
    const median = (k: number) => Number(steps[k]!.medianSecondsFromPrevious ?? 0) * 1000;
    return figures(
      { c0: steps[0]!.count, c1: steps[1]!.count, c2: steps[2]!.count, m1: median(1), m2: median(2) },
      ["c0", "c1", "c2", "m1", "m2"],
      b,
      ["c0", "c1", "c2", "m1", "m2"],
    );
  },
};

const only = process.env.BENCH_ONLY?.split(",");
const asked = (label: string) => !only || only.some((word) => label.includes(word));
const liftTimes: Record<string, { p50: number; p95: number; first: unknown }> = {};
for (const [label, fn] of Object.entries(lift)) {
  if (!asked(label)) continue;
  // A question that fails (the reports' time limit, on a loaded machine) is reported, not fatal.
  const m = await measure(fn).catch((err: Error) => {
    console.log(`Lift  ${label.padEnd(52)} failed: ${err.message.slice(0, 120)}`);
    return null;
  });
  if (!m) continue;
  liftTimes[label] = m;
  console.log(
    `Lift  ${label.padEnd(52)} p50 ${m.p50.toFixed(0).padStart(6)} ms  p95 ${m.p95.toFixed(0).padStart(6)} ms`,
  );
}

if (process.env.BENCH_ANSWERS)
  writeFileSync(
    process.env.BENCH_ANSWERS,
    JSON.stringify(Object.fromEntries(Object.entries(liftTimes).map(([k, m]) => [k, m.first])), null, 1),
  );

// /healthz while the heaviest question (paths) runs back to back.
let running = asked("paths");
const heavy = (async () => {
  while (running) await lift["paths after /, 3 steps, 30d"]!().catch(() => {});
})();
const health: number[] = [];
const until = performance.now() + 10_000;
while (running && performance.now() < until) {
  health.push((await timed(() => app.inject({ method: "GET", url: "/healthz" }))).ms);
  await new Promise((r) => setTimeout(r, 50));
}
running = false;
await heavy;
health.sort((a, b) => a - b);
if (health.length > 0)
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
console.log(`${"question".padEnd(52)}  Lift p50   DuckDB p50   Lift ÷ DuckDB   same answer`);
for (const [label, text] of Object.entries(bare)) {
  if (!asked(label)) continue;
  const bound = text
    .replaceAll("$p", `'${projectId}'`)
    .replaceAll("$from", String(from))
    .replaceAll("$to", String(to));
  const m = await measure(() => c.runAndReadAll(bound));
  const l = liftTimes[label];
  if (!l) continue;
  const same = agree[label]?.(l.first as never, m.first.getRowObjectsJS()[0] as never) ?? "";
  console.log(
    `${label.padEnd(52)} ${l.p50.toFixed(0).padStart(7)} ms ${m.p50.toFixed(0).padStart(9)} ms ${(l.p50 / m.p50).toFixed(2).padStart(12)}   ${same}`,
  );
}
c.closeSync();
instance.closeSync();
