/**
 * Journey reads on SQLite: a visitor's events through the log-structured per-visitor index
 * (`listEventsForVisitors`: the in-memory tail ∪ every bucket, then rows by `seq`) against the plain
 * `(project_id, visitor_id, ts)` index it replaced, on the same events in the same run.
 * Lift's side is filled through the events writer (sessions, index entries, merges into buckets:
 * with the defaults 3 buckets of 262144 and ~214k entries in the tail);
 * the baseline is a raw better-sqlite3 file with the plain index, filled in one transaction.
 * Run: npx tsx bench/events/journey.bench.ts   (BENCH_EVENTS=1000000, BENCH_VISITORS=100000, BENCH_READS=2000)
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import SQLite from "better-sqlite3";
import type { FastifyBaseLogger } from "fastify";
import { listEventsForVisitors } from "../../src/modules/event-store/service.js";
import { snippetToIncoming } from "../../src/modules/events/validate.js";
import { openEventWriter } from "../../src/modules/event-store/writer-slot.js";
import { openDatabase } from "../../src/platform/db/index.js";
import { migrateToLatest } from "../../src/platform/db/migrate.js";
import { EventBus } from "../../src/platform/event-bus.js";
import { benchConfig } from "../lib/config.js";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const VISITORS = Number(process.env.BENCH_VISITORS ?? 100_000);
const READS = Number(process.env.BENCH_READS ?? 2000);
const LIMIT = 100;
const project = { id: "prj_bench", workspaceId: "wsp_bench" };
const T0 = Date.now() - 30 * 86_400_000;
const visitorOf = (i: number) => `v${(i * 7919) % VISITORS}`;

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * p)]!;

const config = benchConfig("journey");
const handle = openDatabase(config);
await migrateToLatest(handle.db, handle.dialect);
// The writer logs only failed flushes and merges; here they throw instead.
const quiet = { warn: () => {}, error: () => {} } as unknown as FastifyBaseLogger;
const writer = openEventWriter(handle, new EventBus(), quiet, {
  maxEvents: 5000,
  maxDelayMs: 0,
  indexMergeRows: config.eventIndexMergeRows,
});
let started = performance.now();
for (let i = 0; i < EVENTS; i += 5000) {
  const batch = Array.from({ length: Math.min(5000, EVENTS - i) }, (_, j) =>
    snippetToIncoming(
      { type: "pageview", visitorId: visitorOf(i + j), url: `https://shop.example.com/p/${(i + j) % 100}` },
      undefined,
      T0 + (i + j) * 2,
    ),
  );
  await writer.write(project, batch, "web");
  if ((i / 5000) % 40 === 0) process.stdout.write(`\rseeding Lift ${i} / ${EVENTS}`);
}
await writer.idle();
const state = handle.sqlite!.prepare("select bucket, merged_seq from event_index_state").get() as {
  bucket: number;
  merged_seq: number;
};
console.log(
  `\rseeded Lift: ${EVENTS} events in ${((performance.now() - started) / 1000).toFixed(1)} s, buckets 0–${state.bucket - 1}, ${EVENTS - state.merged_seq} entries in the tail`,
);

// Baseline: the same rows with the index Lift used before migration 0301.
const rawDir = mkdtempSync(path.join(tmpdir(), "lift-bench-journey-raw-"));
const raw = new SQLite(path.join(rawDir, "raw.db"));
raw.pragma("journal_mode = WAL");
raw.exec(`create table events (id text primary key, project_id text not null, visitor_id text not null,
  lead_id text, type text not null, url text not null, referrer text, data text not null, ts bigint not null,
  received_at bigint not null, session_id text not null, channel text not null, source text, is_bot integer not null);
  create index events_visitor_ts on events (project_id, visitor_id, ts);`);
started = performance.now();
const copy = raw.prepare("insert into events values (?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
const rows = handle
  .sqlite!.prepare(
    "select id, project_id, visitor_id, lead_id, type, url, referrer, data, ts, received_at, session_id, channel, source, is_bot from events order by seq",
  )
  .raw()
  .iterate();
raw.transaction(() => {
  for (const r of rows) copy.run(r as unknown[]);
})();
console.log(`copied to the baseline file in ${((performance.now() - started) / 1000).toFixed(1)} s`);
const plain = raw.prepare(
  "select * from events where project_id = ? and visitor_id in (?) order by ts asc, id asc limit ?",
);

const lift: number[] = [];
const base: number[] = [];
let checked = 0;
for (let r = 0; r < READS; r++) {
  const v = visitorOf(Math.floor(Math.random() * EVENTS));
  let t = performance.now();
  const journey = await listEventsForVisitors(handle.db, project, [v], LIMIT);
  lift.push(performance.now() - t);
  t = performance.now();
  const expected = plain.all(project.id, v, LIMIT) as { id: string }[];
  base.push(performance.now() - t);
  if (journey.map((e) => e.id).join() !== expected.map((e) => e.id).join())
    throw new Error(`journey of ${v} differs from the plain index`);
  checked++;
}
const line = (name: string, xs: number[]) =>
  `${name.padEnd(44)} p50 ${pct(xs, 0.5).toFixed(3)} ms  p95 ${pct(xs, 0.95).toFixed(3)} ms`;
console.log(line("Lift (tail ∪ buckets, via Kysely)", lift));
console.log(line("raw better-sqlite3, plain index (baseline)", base));
console.log(
  `${checked} journeys (≤ ${LIMIT} events, ~${Math.round(EVENTS / VISITORS)} per visitor), identical results; p50 ratio Lift / baseline ${(pct(lift, 0.5) / pct(base, 0.5)).toFixed(2)}`,
);
raw.close();
rmSync(rawDir, { recursive: true, force: true });
await handle.close();
rmSync(config.dataDir, { recursive: true, force: true });
