/**
 * Erasure latency: DELETE /api/identity?visitorId= (fastify.inject: routing, auth, serialization
 * included) over a project holding N stored events (seed-events.ts: 10 per visitor on one day, 20%
 * of visitors in leads), on SQLite. Ingest waits for the whole erasure (it runs in the events
 * writer's exclusive slot), so this is also how long events queue. Each run erases another visitor:
 * its events, and a rebuild of every visitor sketch of its week from the week's remaining events.
 * Baseline in the same run: one SQL pass counting the distinct visitors of that week, the least a
 * rebuild from events must read.
 * Run: npx tsx bench/identity/erasure.bench.ts             (BENCH_EVENTS=1000000 by default)
 *      BENCH_EVENTS=10000000 npx tsx bench/identity/erasure.bench.ts
 */
import { rmSync } from "node:fs";
import { buildApp } from "../../src/app.js";
import { provisionWorkspace } from "../../src/modules/workspace/bootstrap.js";
import { seedStoredEvents } from "../analytics/seed-events.js";
import { benchConfig } from "../lib/config.js";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const DAY = 86_400_000;

const config = benchConfig("erasure");
const app = await buildApp(config, { logger: false });
await app.ready();
try {
  const p = await provisionWorkspace(app.db, { name: "bench", email: "bench@example.com" });
  const sqlite = app.dbHandle.sqlite!;
  const t0 = performance.now();
  seedStoredEvents(sqlite, p.project.id, EVENTS, Date.now());
  // The per-visitor index of the seeded rows, as one merged bucket (the writer would have built
  // it at ingest): the erasure finds a visitor's events through it.
  sqlite.exec(`insert into event_visitor_index (project_id, bucket, visitor_id, ts, seq)
    select project_id, 0, visitor_id, ts, seq from events order by project_id, visitor_id, ts, seq`);
  sqlite.exec("update event_index_state set merged_seq = (select max(seq) from events)");
  sqlite.exec("analyze");
  console.log(
    `seeded ${EVENTS.toLocaleString("en")} events in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  const weekVisitors = sqlite.prepare(
    "select count(distinct visitor_id) from events where project_id = ? and ts >= ? and ts < ? and is_bot = 0",
  );
  const times: number[] = [];
  const base: number[] = [];
  let removed = 0;
  for (let i = 0; i < RUNS + 1; i++) {
    const visitorId = `v${(i * 7_919 + 13) % Math.floor(EVENTS / 10)}`;
    const ts = sqlite
      .prepare(
        "select min(ts) from event_visitor_index where project_id = ? and bucket = 0 and visitor_id = ?",
      )
      .pluck()
      .get(p.project.id, visitorId) as number | null;
    const day = Math.floor((ts ?? Date.now()) / DAY);
    const weekFrom = (Math.floor((day + 3) / 7) * 7 - 3) * DAY;
    const b0 = performance.now();
    weekVisitors.get(p.project.id, weekFrom, weekFrom + 7 * DAY);
    const b = performance.now() - b0;
    const s = performance.now();
    const res = await app.inject({
      method: "DELETE",
      url: `/api/identity?visitorId=${visitorId}`,
      headers: { "x-api-key": p.key.rawKey },
    });
    const elapsed = performance.now() - s;
    if (res.statusCode !== 200) throw new Error(`erase: ${res.statusCode} ${res.body}`);
    if (i === 0) continue; // warm-up
    removed += (JSON.parse(res.body) as { removed: { events: number } }).removed.events;
    times.push(elapsed);
    base.push(b);
  }
  const q = (xs: number[], f: number) =>
    [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(f * xs.length))]!;
  console.log(
    `DELETE /api/identity?visitorId= (one visitor, 10 events)   p50 ${q(times, 0.5).toFixed(0)} ms   p95 ${q(times, 0.95).toFixed(0)} ms   (${removed} events erased)`,
  );
  console.log(
    `baseline: distinct visitors of the visitor's week (SQL)   p50 ${q(base, 0.5).toFixed(0)} ms   ratio ${(q(times, 0.5) / q(base, 0.5)).toFixed(2)}`,
  );
} finally {
  await app.close();
  rmSync(config.dataDir, { recursive: true, force: true });
}
