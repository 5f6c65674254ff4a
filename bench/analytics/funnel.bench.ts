import { benchConfig } from "../lib/config.js";
import { quantile, timedRuns } from "../lib/timing.js";
/**
 * Funnel and retention latency: POST /api/analytics/funnel and GET /api/analytics/retention (fastify.inject: routing, auth, serialization
 * included) over a project holding N stored events, on SQLite. Events are written straight into
 * `events`: 10 per visitor over 120 days (pageviews over 50 pages, /pricing among them; 30% of
 * visitors sign up, a third of those buy), 20% of visitors paired into leads (analytics_links).
 * Baseline in the same run: one SQL pass over the same rows (distinct visitors per step type in
 * the period), the least a scan-based funnel must read.
 * Run: npx tsx bench/analytics/funnel.bench.ts            (BENCH_EVENTS=1000000 by default;
 *      BENCH_ONLY=retention for the retention lines alone)
 *      BENCH_EVENTS=10000000 npx tsx bench/analytics/funnel.bench.ts
 */
import { rmSync } from "node:fs";
import { buildApp } from "../../src/app.js";
import { provisionWorkspace } from "../../src/modules/workspace/bootstrap.js";
import { seedStoredEvents } from "./seed-events.js";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const DAY = 86_400_000;

const config = benchConfig("funnel");
const app = await buildApp(config, { logger: false });
await app.ready();
try {
  const p = await provisionWorkspace(app.db, { name: "bench", email: "bench@example.com" });
  const sqlite = app.dbHandle.sqlite!;
  const now = Date.now();
  const t0 = performance.now();
  seedStoredEvents(sqlite, p.project.id, EVENTS, now);
  sqlite.exec("analyze");
  console.log(
    `seeded ${EVENTS.toLocaleString("en")} events in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );

  const measure = async (label: string, fn: () => Promise<unknown>) => {
    await fn();
    const times = await timedRuns(fn, RUNS);
    const q = (f: number) => quantile(times, f);
    console.log(
      `${label.padEnd(52)} p50 ${q(0.5).toFixed(0).padStart(6)} ms   p95 ${q(0.95).toFixed(0).padStart(6)} ms`,
    );
    return q(0.5);
  };
  // BENCH_ONLY=retention skips the funnel lines (and their baseline).
  if (process.env.BENCH_ONLY !== "retention") {
    const since30 = now - 30 * DAY;
    const baseline = sqlite.prepare(
      "select type, count(distinct visitor_id) n from events where project_id = ? and ts >= ? and type in ('pageview', 'signup', 'purchase') and is_bot = 0 group by type",
    );
    const base = await measure("baseline: distinct visitors per step type, 30d", async () =>
      baseline.all(p.project.id, since30),
    );
    let counts: number[] = [];
    const funnel = (period: string) => async () => {
      const res = await app.inject({
        method: "POST",
        url: "/api/analytics/funnel",
        headers: { "x-api-key": p.key.rawKey },
        payload: {
          period,
          steps: [
            { eventType: "pageview", urlPattern: "*/pricing" },
            { eventType: "signup" },
            { eventType: "purchase" },
          ],
        },
      });
      if (res.statusCode !== 200) throw new Error(`funnel: ${res.statusCode} ${res.body}`);
      counts = (JSON.parse(res.body) as { steps: { count: number }[] }).steps.map((s) => s.count);
    };
    const f30 = await measure("POST /api/analytics/funnel (3 steps, 30d)", funnel("30d"));
    console.log(`  counts ${counts.join(" → ")}`);
    await measure("POST /api/analytics/funnel (3 steps, 7d)", funnel("7d"));
    console.log(`ratio funnel 30d / baseline (p50): ${(f30 / base).toFixed(2)}`);
  }
  let cohorts = 0;
  await measure("GET /api/analytics/retention (weekly, 90d)", async () => {
    const res = await app.inject({
      method: "GET",
      url: "/api/analytics/retention?period=90d&interval=week",
      headers: { "x-api-key": p.key.rawKey },
    });
    if (res.statusCode !== 200) throw new Error(`retention: ${res.statusCode} ${res.body}`);
    cohorts = (JSON.parse(res.body) as { cohorts: unknown[] }).cohorts.length;
  });
  console.log(`  ${cohorts} weekly cohorts`);
} finally {
  await app.close();
  rmSync(config.dataDir, { recursive: true, force: true });
}
