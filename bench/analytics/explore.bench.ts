/**
 * Issue 34: filtered summaries, cohort counts and paths over N stored events, on SQLite (default)
 * or PostgreSQL (BENCH_DB=postgres with DATABASE_URL; a fresh schema, dropped at the end). Requests
 * go through fastify.inject (routing, auth, validation, serialization). Seed: seed-explore.ts.
 * Run: npx tsx bench/analytics/explore.bench.ts                       (BENCH_EVENTS=1000000)
 *      BENCH_EVENTS=10000000 npx tsx bench/analytics/explore.bench.ts
 *      BENCH_DB=postgres DATABASE_URL=postgres://… BENCH_EVENTS=… npx tsx bench/analytics/explore.bench.ts
 * BENCH_RUNS (default 10) requests per line after a warm-up; BENCH_ONLY=summary,cohort,paths,dashboard,floor
 * (any of them). `floor`: the cost of reading the period's raw events at all (a count in the
 * database; the rows a path needs read into JS with no work per row), below which no raw-data
 * report can go. `dashboard`: 6 saved insights on a dashboard (GET /api/dashboards/:id/results:
 * computed, every tile per request with refresh=true; kept, the same version within its minute),
 * each insight alone, and the public link (uncached: the dashboard renamed before each request, a
 * new version; cached: the same version within its minute).
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { loadavg } from "node:os";
import { sql } from "kysely";
import pg from "pg";
import { buildApp } from "../../src/app.js";
import { type Config, loadConfig } from "../../src/config.js";
import { eventRowPages } from "../../src/modules/event-store/store/pages.js";
import { ensureEventPartitions } from "../../src/modules/event-store/store/partitions.js";
import { provisionWorkspace } from "../../src/modules/workspace/bootstrap.js";
import { benchConfig } from "../lib/config.js";
import { quantile, timedRuns } from "../lib/timing.js";
import { seedExplore } from "./seed-explore.js";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const ONLY = process.env.BENCH_ONLY?.split(",");
const POSTGRES = process.env.BENCH_DB === "postgres";
const DAY = 86_400_000;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");

let config: Config = benchConfig("explore");
const schema = `bench_explore_${randomBytes(4).toString("hex")}`;
if (POSTGRES) {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("BENCH_DB=postgres needs DATABASE_URL");
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(`create schema ${schema}`);
  await c.end();
  config = {
    ...loadConfig(
      { ...process.env },
      { dataDir: config.dataDir, secretKey: randomBytes(32).toString("base64url") },
    ),
    databaseSchema: schema,
    startWorkers: false,
    logLevel: "silent",
    rateLimits: { events: 0, reads: 0, writes: 0 },
  };
}
const app = await buildApp(config, { logger: false });
await app.ready();
try {
  const p = await provisionWorkspace(app.db, { name: "bench", email: "bench@example.com" });
  const now = Date.now();
  if (POSTGRES) await ensureEventPartitions(app.db, now - 125 * DAY, now + 60 * DAY);
  const t0 = performance.now();
  const seeded = await seedExplore(app.db, POSTGRES, app.dbHandle.sqlite, p.project.id, EVENTS, now);
  if (POSTGRES) await sql`analyze`.execute(app.db);
  else app.dbHandle.sqlite!.exec("analyze");
  console.log(
    `${POSTGRES ? "PostgreSQL" : "SQLite"}: seeded ${seeded.events.toLocaleString("en")} events, ${seeded.visitors.toLocaleString("en")} visitors, ${seeded.sessions.toLocaleString("en")} sessions in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );

  const call = async (method: "GET" | "POST" | "PATCH", url: string, payload?: unknown) => {
    const res = await app.inject({
      method,
      url,
      headers: { "x-api-key": p.key.rawKey },
      payload: payload as never,
    });
    if (res.statusCode !== 200 && res.statusCode !== 201)
      throw new Error(`${url}: ${res.statusCode} ${res.body}`);
    return JSON.parse(res.body);
  };
  /** BENCH_RUNS timed calls of `fn` after a warm-up one; `setup` (untimed) runs before each call. */
  const measure = async <T>(
    label: string,
    fn: () => Promise<T>,
    setup?: (i: number) => Promise<unknown>,
  ): Promise<T> => {
    await setup?.(-1);
    const first = await fn();
    const times = await timedRuns(fn, RUNS, setup);
    const q = (f: number) => quantile(times, f);
    console.log(
      `${label.padEnd(64)} p50 ${q(0.5).toFixed(0).padStart(6)} ms   p95 ${q(0.95).toFixed(0).padStart(6)} ms`,
    );
    return first;
  };
  const f = (filter: unknown) => encodeURIComponent(JSON.stringify(filter));
  const show = (s: { visitors: number; conversions: number; leads: number }) =>
    `  visitors ${s.visitors}, conversions ${s.conversions}, leads ${s.leads}`;

  if (!ONLY || ONLY.includes("summary")) {
    console.log(
      show(
        await measure("summary 30d, no filter (rollups)", () =>
          call("GET", "/api/analytics/summary?period=30d"),
        ),
      ),
    );
    console.log(
      show(
        await measure("summary 30d, channel is organic_search (rollups)", () =>
          call(
            "GET",
            `/api/analytics/summary?period=30d&filter=${f([{ key: "channel", op: "is", value: "organic_search" }])}`,
          ),
        ),
      ),
    );
    console.log(
      show(
        await measure("summary 7d, device is mobile (sessions)", () =>
          call(
            "GET",
            `/api/analytics/summary?period=7d&filter=${f([{ key: "device", op: "is", value: "mobile" }])}`,
          ),
        ),
      ),
    );
    console.log(
      show(
        await measure("summary 30d, device is mobile (sessions)", () =>
          call(
            "GET",
            `/api/analytics/summary?period=30d&filter=${f([{ key: "device", op: "is", value: "mobile" }])}`,
          ),
        ),
      ),
    );
    console.log(
      show(
        await measure("summary 30d, page matches */pricing (events)", () =>
          call(
            "GET",
            `/api/analytics/summary?period=30d&filter=${f([{ key: "page", op: "matches", value: "*/pricing" }])}`,
          ),
        ),
      ),
    );
    console.log(
      show(
        await measure("summary 30d, event.plan is pro + device is mobile (events)", () =>
          call(
            "GET",
            `/api/analytics/summary?period=30d&filter=${f([
              { key: "event.plan", op: "is", value: "pro" },
              { key: "device", op: "is", value: "mobile" },
            ])}`,
          ),
        ),
      ),
    );
  }
  if (!ONLY || ONLY.includes("cohort")) {
    const count = (conditions: unknown[]) => () =>
      call("POST", "/api/cohorts/preview", { definition: { conditions } });
    const c1 = await measure(
      "cohort count: did purchase in 30 days (activity)",
      count([{ type: "event", event: "purchase", withinDays: 30 }]),
    );
    console.log(`  ${c1.count} people`);
    const c2 = await measure(
      "cohort count: pageview of */pricing ≥ 2 times in 30 days (events)",
      count([
        {
          type: "event",
          event: "pageview",
          atLeast: 2,
          withinDays: 30,
          where: [{ key: "page", op: "matches", value: "*/pricing" }],
        },
      ]),
    );
    console.log(`  ${c2.count} people`);
    const c3 = await measure(
      "cohort count: pageview in 30 days, did not purchase (activity)",
      count([
        { type: "event", event: "pageview", withinDays: 30 },
        { type: "event", event: "purchase", withinDays: 30, did: false },
      ]),
    );
    console.log(`  ${c3.count} people`);
  }
  if (!ONLY || ONLY.includes("floor")) {
    // What any answer computed from the period's raw events pays before doing anything with them:
    // the engine counting the rows (nothing leaves the database), and the rows a path or a page
    // filter needs (session, visitor, type, URL) read into JS through the reports' own reader,
    // with no work per row. A raw-data report cannot be faster than these on this machine.
    const project = { id: p.project.id, workspaceId: p.workspace.id };
    for (const days of [7, 30]) {
      const range = { from: (Math.floor(now / DAY) - days + 1) * DAY, to: (Math.floor(now / DAY) + 1) * DAY };
      const counted = await measure(`floor: count the events of ${days}d in the database`, async () =>
        Number(
          (
            await sql<{
              n: number | string;
            }>`select count(*) as n from events where project_id = ${project.id}
              and ts >= ${range.from} and ts < ${range.to} and is_bot = 0`.execute(app.db)
          ).rows[0]!.n,
        ),
      );
      let rows = 0;
      await measure(`floor: read ${days}d of events into JS (session, visitor, type, url)`, async () => {
        rows = 0;
        for await (const page of eventRowPages(
          app.db,
          project,
          range,
          sql`session_id, visitor_id, type, url`,
          null,
        ))
          rows += page.length;
      });
      console.log(`  ${counted.toLocaleString("en")} events counted, ${rows.toLocaleString("en")} read`);
    }
  }
  if (!ONLY || ONLY.includes("paths")) {
    for (const period of ["7d", "30d"]) {
      const r = await measure(`paths after /pricing, 3 steps, ${period} (events)`, () =>
        call("POST", "/api/analytics/paths", {
          start: { event: "pageview", page: "/pricing" },
          steps: 3,
          period,
        }),
      );
      console.log(
        `  ${r.sessions} sessions, ${r.paths.length} paths, top ${r.paths[0]?.nodes.join(" → ")} (${r.paths[0]?.sessions})`,
      );
    }
  }
  if (!ONLY || ONLY.includes("dashboard")) {
    console.log(`  load average ${load()}`);
    const insights: { kind: string; name: string; settings: unknown }[] = [
      { kind: "summary", name: "Summary, 30 days", settings: { period: "30d" } },
      { kind: "timeseries", name: "Visitors per day, 30 days", settings: { period: "30d", interval: "day" } },
      { kind: "breakdown", name: "By channel, 30 days", settings: { by: "channel", period: "30d" } },
      {
        kind: "funnel",
        name: "Pricing → signup → purchase, 30 days",
        settings: {
          steps: [
            { eventType: "pageview", urlPattern: "*/pricing" },
            { eventType: "signup" },
            { eventType: "purchase" },
          ],
          windowDays: 14,
          period: "30d",
        },
      },
      {
        kind: "retention",
        name: "Weekly retention, 30 days",
        settings: { period: "30d", interval: "week" },
      },
      {
        kind: "attribution",
        name: "Position-based attribution, 30 days",
        settings: { model: "position_based", period: "30d" },
      },
    ];
    // The seed leaves the attribution rollup empty: fill position_based from the seeded conversions
    // (whole credit to the conversion's channel, a stand-in; the tile reads the rollup's rows).
    await sql`insert into analytics_attribution_daily (project_id, day, model, channel, credited, revenue)
      select project_id, ts / ${DAY}, 'position_based', channel, count(*), sum(revenue)
      from analytics_conversions where project_id = ${p.project.id} and counted = 1
      group by 1, 2, 3, 4`.execute(app.db);
    const ids: string[] = [];
    for (const body of insights) ids.push((await call("POST", "/api/insights", body)).id);
    const dashboard = await call("POST", "/api/dashboards", {
      name: "Marketing",
      items: ids.map((insightId, i) => ({ insightId, x: (i % 2) * 6, y: Math.floor(i / 2) * 3, w: 6, h: 3 })),
    });
    const r = await measure("dashboard of 6 insights: results (computed per request)", () =>
      call("GET", `/api/dashboards/${dashboard.id}/results?refresh=true`),
    );
    const errors = r.tiles.filter((t: { error: unknown }) => t.error);
    if (errors.length) throw new Error(`tiles failed: ${JSON.stringify(errors)}`);
    const res = (kind: string) => r.tiles.find((t: { kind: string }) => t.kind === kind).answer.result;
    console.log(
      `  visitors ${res("summary").visitors}, ${res("timeseries").points.length} days, ${res("breakdown").rows.length} channels, funnel ${res(
        "funnel",
      )
        .steps.map((s: { count: number }) => s.count)
        .join(
          " → ",
        )}, ${res("retention").cohorts.length} retention cohorts, ${res("attribution").channels.length} attributed channels`,
    );
    await measure("dashboard results, kept (within its minute)", () =>
      call("GET", `/api/dashboards/${dashboard.id}/results`),
    );
    for (const [i, id] of ids.entries())
      await measure(`  insight alone: ${insights[i]!.name}`, () =>
        call("GET", `/api/insights/${id}/results`),
      );
    const { token } = await call("POST", `/api/dashboards/${dashboard.id}/share`);
    await measure(
      "shared link, uncached (dashboard renamed before each request)",
      () => call("GET", `/api/shared/dashboards/${token}`),
      (i) => call("PATCH", `/api/dashboards/${dashboard.id}`, { name: `Marketing ${i}` }),
    );
    await measure("shared link, cached (the same version within its minute)", () =>
      call("GET", `/api/shared/dashboards/${token}`),
    );
    console.log(`  load average ${load()}`);
  }
} finally {
  await app.close();
  rmSync(config.dataDir, { recursive: true, force: true });
  if (POSTGRES) {
    const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await c.connect();
    await c.query(`drop schema ${schema} cascade`);
    await c.end();
  }
}
