/**
 * Issue 34: filtered summaries, cohort counts and paths over N stored events, on SQLite (default)
 * or PostgreSQL (BENCH_DB=postgres with DATABASE_URL; a fresh schema, dropped at the end). Requests
 * go through fastify.inject (routing, auth, validation, serialization). Seed: seed-explore.ts.
 * Run: npx tsx bench/analytics/explore.bench.ts                       (BENCH_EVENTS=1000000)
 *      BENCH_EVENTS=10000000 npx tsx bench/analytics/explore.bench.ts
 *      BENCH_DB=postgres DATABASE_URL=postgres://… BENCH_EVENTS=… npx tsx bench/analytics/explore.bench.ts
 * BENCH_RUNS (default 10) requests per line after a warm-up; BENCH_ONLY=summary,cohort,paths (any of them).
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { sql } from "kysely";
import pg from "pg";
import { buildApp } from "../../src/app.js";
import { type Config, loadConfig } from "../../src/config.js";
import { ensureEventPartitions } from "../../src/modules/events/partitions.js";
import { provisionWorkspace } from "../../src/modules/workspace/bootstrap.js";
import { benchConfig } from "../lib/config.js";
import { seedExplore } from "./seed-explore.js";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const ONLY = process.env.BENCH_ONLY?.split(",");
const POSTGRES = process.env.BENCH_DB === "postgres";
const DAY = 86_400_000;

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
  const measure = async <T>(label: string, fn: () => Promise<T>): Promise<T> => {
    const first = await fn();
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const s = performance.now();
      await fn();
      times.push(performance.now() - s);
    }
    times.sort((a, b) => a - b);
    const q = (f: number) => times[Math.min(times.length - 1, Math.floor(f * times.length))]!;
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
