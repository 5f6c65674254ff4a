/**
 * Batch ingest: POST /api/events with 500 events per request (batch format) against raw
 * better-sqlite3 prepared inserts of the same rows into `events` in one transaction, same schema,
 * same run (the baseline), and, for reference, the same rows with a plain
 * `(project_id, visitor_id, ts)` index on `events` (what a per-visitor lookup needs, and what Lift
 * had before migration 0301).
 * Lift runs as built (every module's event processors) and with processors unregistered (the
 * events module alone); the figure is the median of the per-round ratios (shared, noisy machine).
 * Run: npx tsx bench/events/batch-ingest.bench.ts   (BENCH_ROUNDS=3, BENCH_SECONDS=5, BENCH_VISITORS=20000)
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "../../src/config.js";
import { openDatabase } from "../../src/platform/db/index.js";
import { migrateToLatest } from "../../src/platform/db/migrate.js";
import { compareWithRecorded } from "../lib/recorded.js";
import { type LoadResult, loadEvents as load, startLift } from "./servers.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const PER_REQUEST = 500;
const BASELINE_ROWS = 100_000;
// Distinct visitors the events cycle through: many visitors = random writes in the visitor index.
const VISITORS = Number(process.env.BENCH_VISITORS ?? 20_000);

const eventOf = (i: number) => ({
  type: i % 10 === 0 ? "click" : "pageview",
  visitorId: `v${i % VISITORS}`,
  url: `https://shop.example.com/p/${i % 100}`,
  referrer: i % 7 === 0 ? "https://www.google.com/" : undefined,
  data: { plan: "pro", i },
});

/**
 * The same rows as the writer stores, inserted with one prepared statement per table in one
 * transaction into a freshly migrated file; `withIndex` adds a plain per-visitor index first.
 */
async function rawBaseline(withIndex = false): Promise<number> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "lift-bench-raw-"));
  const handle = openDatabase(loadConfig({}, { dataDir, secretKey: "bench" }));
  await migrateToLatest(handle.db, handle.dialect);
  const db = handle.sqlite!;
  const stmt = db.prepare(
    "insert into events (id, project_id, visitor_id, lead_id, type, url, referrer, data, ts, received_at, session_id, channel, source, is_bot, is_server) values (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
  );
  const now = Date.now();
  const rows = Array.from({ length: BASELINE_ROWS }, (_, i) => {
    const e = eventOf(i);
    const id = `ev_${now.toString(36)}${i.toString(36).padStart(6, "0")}abcdefgh`;
    return [
      id,
      "prj_bench",
      e.visitorId,
      null,
      e.type,
      e.url,
      e.referrer ?? null,
      JSON.stringify(e.data),
      now + i,
      now,
      // batch-format events are server events: no session, channel unattributed
      "",
      "unattributed",
      null,
      0,
      1,
    ];
  });
  if (withIndex) db.exec("create index events_visitor_ts_ref on events (project_id, visitor_id, ts)");
  const insertAll = db.transaction((rs: unknown[][]) => {
    for (const r of rs) {
      stmt.run(r);
    }
  });
  const started = performance.now();
  insertAll(rows);
  const seconds = (performance.now() - started) / 1000;
  await handle.close();
  return BASELINE_ROWS / seconds;
}

const full = await startLift({ processors: true });
const alone = await startLift({ processors: false });
// Bodies are built once (200 distinct batches) so the client spends its CPU on sending, not on
// JSON.stringify; the server still parses, validates and stores every event.
const bodyFor = (key: string) => {
  const pool = Array.from({ length: 200 }, (_, b) =>
    JSON.stringify({
      projectKey: key,
      events: Array.from({ length: PER_REQUEST }, (_, j) => eventOf(b * PER_REQUEST + j)),
    }),
  );
  let n = 0;
  return () => pool[n++ % pool.length]!;
};
const lifts = [
  // A server's batches (the secret key): a page's public key sends at most 100 events a batch.
  { name: "Lift, all event processors", url: `${full.base}/api/events`, body: bodyFor(full.apiKey) },
  { name: "Lift, events module alone", url: `${alone.base}/api/events`, body: bodyFor(alone.apiKey) },
];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
try {
  for (const l of lifts) await load(l.url, CONNECTIONS, 2, l.body); // warm-up
  const raw: number[] = [];
  const got: LoadResult[][] = lifts.map(() => []);
  // Each Lift measurement sits between two raw measurements; its ratio uses their mean, so a
  // change of the machine's load during the round hits both sides.
  const rawAround: number[][] = lifts.map(() => []);
  let before = await rawBaseline();
  raw.push(before);
  for (let r = 0; r < ROUNDS; r++) {
    for (let i = 0; i < lifts.length; i++) {
      const k = (r + i) % lifts.length;
      const res = await load(lifts[k]!.url, CONNECTIONS, SECONDS, lifts[k]!.body);
      if (res.non2xx > 0) throw new Error(`${lifts[k]!.name}: ${res.non2xx} non-2xx responses`);
      const after = await rawBaseline();
      raw.push(after);
      got[k]!.push(res);
      rawAround[k]!.push((before + after) / 2);
      before = after;
    }
  }
  const withIndex = [await rawBaseline(true), await rawBaseline(true), await rawBaseline(true)];
  console.log(
    `raw better-sqlite3 (prepared inserts, one transaction), events rows  events/s ${raw.map((x) => x.toFixed(0)).join(" / ")}`,
  );
  console.log(
    `raw better-sqlite3, rows + plain per-visitor index (reference)  events/s ${withIndex.map((x) => x.toFixed(0)).join(" / ")}  median ${median(withIndex).toFixed(0)}`,
  );
  const medians: number[] = [];
  for (let i = 0; i < lifts.length; i++) {
    const eps = got[i]!.map((x) => x.rps * PER_REQUEST);
    const ratios = eps.map((e, r) => e / rawAround[i]![r]!);
    medians.push(median(ratios));
    const p50 = median(got[i]!.map((x) => x.p50));
    console.log(
      `${lifts[i]!.name.padEnd(28)} events/s ${eps.map((x) => x.toFixed(0)).join(" / ")}  median ${median(eps).toFixed(0)}  p50 ${p50} ms  median ratio ${median(ratios).toFixed(2)} (to rows + plain index: ${(median(eps) / median(withIndex)).toFixed(2)})`,
    );
  }
  console.log(
    `${ROUNDS} rounds x ${SECONDS} s, ${PER_REQUEST} events per request, ${CONNECTIONS} connections; target: ratio >= 0.5`,
  );
  for (let i = 0; i < lifts.length; i++)
    compareWithRecorded(`batch of 500, ${lifts[i]!.name} ÷ raw inserts`, medians[i]!);
} finally {
  await Promise.all([full.stop(), alone.stop()]);
}
