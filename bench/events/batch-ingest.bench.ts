/**
 * Batch ingest: POST /api/events with 500 events per request (batch format) against raw
 * better-sqlite3 prepared inserts of the same rows in one transaction, same schema, same run.
 * Run: npx tsx bench/events/batch-ingest.bench.ts   (BENCH_SECONDS=10 by default)
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "../../src/config.js";
import { openDatabase } from "../../src/platform/db/index.js";
import { migrateToLatest } from "../../src/platform/db/migrate.js";
import { type LoadResult, load, startLift } from "./servers.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const PER_REQUEST = 500;
const BASELINE_ROWS = 200_000;

const eventOf = (i: number) => ({
  type: i % 10 === 0 ? "click" : "pageview",
  visitorId: `v${i % 20_000}`,
  url: `https://shop.example.com/p/${i % 100}`,
  referrer: i % 7 === 0 ? "https://www.google.com/" : undefined,
  data: { plan: "pro", i },
});

/** The same rows as the writer stores, inserted with one prepared statement in one transaction. */
async function rawBaseline(): Promise<number> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "lift-bench-raw-"));
  const handle = openDatabase(loadConfig({}, { dataDir, secretKey: "bench" }));
  await migrateToLatest(handle.db, handle.dialect);
  const db = handle.sqlite!;
  const stmt = db.prepare(
    "insert into events (id, project_id, visitor_id, lead_id, type, url, referrer, data, ts, received_at, session_id, channel, source, is_bot) values (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
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
      `ses_${i % 20_000}`,
      "direct",
      null,
      0,
    ];
  });
  const insertAll = db.transaction((rs: unknown[][]) => {
    for (const r of rs) stmt.run(r);
  });
  const started = performance.now();
  insertAll(rows);
  const seconds = (performance.now() - started) / 1000;
  await handle.close();
  return BASELINE_ROWS / seconds;
}

async function lift(processors: boolean): Promise<LoadResult> {
  const s = await startLift({ processors });
  let seq = 0;
  const body = () =>
    JSON.stringify({
      projectKey: s.publicKey,
      events: Array.from({ length: PER_REQUEST }, () => eventOf(seq++)),
    });
  try {
    await load(`${s.base}/api/events`, CONNECTIONS, 2, body); // warm-up
    const r = await load(`${s.base}/api/events`, CONNECTIONS, SECONDS, body);
    if (r.non2xx > 0) throw new Error(`Lift answered ${r.non2xx} non-2xx responses`);
    return r;
  } finally {
    await s.stop();
  }
}

// One thing at a time (2 cores); the raw baseline is measured before and after Lift.
const raw1 = await rawBaseline();
const full = await lift(true);
const alone = await lift(false);
const raw2 = await rawBaseline();
const raw = (raw1 + raw2) / 2;
const line = (name: string, r: LoadResult) => {
  const eps = r.rps * PER_REQUEST;
  return `${name.padEnd(30)} ${eps.toFixed(0).padStart(7)} events/s (${r.rps.toFixed(1)} req/s)  p50 ${r.p50} ms  p99 ${r.p99} ms  ratio ${(eps / raw).toFixed(2)}`;
};
console.log(
  `raw better-sqlite3 (before / after) ${raw1.toFixed(0)} / ${raw2.toFixed(0)} events/s (prepared insert, one transaction)`,
);
console.log(line("Lift, all event processors", full));
console.log(line("Lift, events module alone", alone));
console.log(
  `${PER_REQUEST} events per request, ${CONNECTIONS} connections; target: ratio >= 0.3 and >= 100000 events/s`,
);
