import { benchConfig } from "../lib/config.js";
import { quantile, timedRuns } from "../lib/timing.js";
/**
 * Summary and attribution latency (p50/p95) over a project holding N stored events' worth of
 * derived data (touchpoints, conversions, daily rollups; see seed.ts), through the HTTP routes
 * (fastify.inject, so routing, auth and serialization are included), on SQLite.
 * Baseline in the same run: a distinct-visitor count scanning the raw session rows of the period
 * (what the summary would cost without rollups).
 * Run: npx tsx bench/analytics/latency.bench.ts            (BENCH_EVENTS=1000000 by default)
 *      BENCH_EVENTS=10000000 npx tsx bench/analytics/latency.bench.ts
 */
import { rmSync } from "node:fs";
import { buildApp } from "../../src/app.js";
import { provisionWorkspace } from "../../src/modules/workspace/bootstrap.js";
import { seedAnalytics } from "./seed.js";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 40);

const config = benchConfig("analytics");
const dataDir = config.dataDir;
const app = await buildApp(config, { logger: false });
await app.ready();
try {
  const p = await provisionWorkspace(app.db, { name: "bench", email: "bench@example.com" });
  const sqlite = app.dbHandle.sqlite!;
  const started = performance.now();
  const counts = seedAnalytics(sqlite, p.project.id, EVENTS, Date.now());
  sqlite.exec("analyze");
  console.log(
    `seeded ${EVENTS.toLocaleString("en")} events' worth in ${((performance.now() - started) / 1000).toFixed(1)} s:`,
    counts,
  );

  const headers = { "x-api-key": p.key.rawKey };
  const measure = async (label: string, fn: () => Promise<unknown>) => {
    for (let i = 0; i < 3; i++) await fn();
    const times = await timedRuns(fn, RUNS);
    const q = (f: number) => quantile(times, f);
    console.log(
      `${label.padEnd(44)} p50 ${q(0.5).toFixed(1).padStart(7)} ms   p95 ${q(0.95).toFixed(1).padStart(7)} ms`,
    );
    return q(0.5);
  };
  const get = (url: string) => async () => {
    const res = await app.inject({ method: "GET", url, headers });
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  };
  const since30 = Date.now() - 30 * 86_400_000;
  const naive = sqlite.prepare(
    "select count(distinct visitor_id) n from analytics_touchpoints where project_id = ? and ts >= ?",
  );
  const base = await measure("baseline: distinct visitors from raw sessions 30d", async () =>
    naive.get(p.project.id, since30),
  );
  const s30 = await measure("GET /api/analytics/summary (30d)", get("/api/analytics/summary"));
  await measure("GET /api/analytics/summary (90d)", get("/api/analytics/summary?period=90d"));
  await measure("GET /api/attribution/summary (position_based 30d)", get("/api/attribution/summary"));
  await measure(
    "GET /api/attribution/summary (time_decay 90d)",
    get("/api/attribution/summary?model=time_decay&period=90d"),
  );
  await measure(
    "GET /api/attribution/summary (linear 7d)",
    get("/api/attribution/summary?model=linear&period=7d"),
  );
  await measure("GET /api/analytics/breakdown (channel 30d)", get("/api/analytics/breakdown?by=channel"));
  await measure(
    "GET /api/analytics/breakdown (landing_page 30d)",
    get("/api/analytics/breakdown?by=landing_page&limit=100"),
  );
  await measure(
    "GET /api/analytics/breakdown (landing_page 90d)",
    get("/api/analytics/breakdown?by=landing_page&period=90d&limit=100"),
  );
  await measure(
    "GET /api/analytics/breakdown (device 90d)",
    get("/api/analytics/breakdown?by=device&period=90d"),
  );
  await measure(
    "GET /api/analytics/breakdown (event_type 30d)",
    get("/api/analytics/breakdown?by=event_type"),
  );
  const rawBreakdown = sqlite.prepare(
    "select landing_page, count(distinct visitor_id) n from analytics_touchpoints where project_id = ? and ts >= ? group by landing_page",
  );
  await measure("baseline: visitors per landing page from raw sessions 30d", async () =>
    rawBreakdown.all(p.project.id, since30),
  );
  console.log(`ratio summary 30d / raw-scan baseline (p50): ${(s30 / base).toFixed(3)}`);
} finally {
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
}
