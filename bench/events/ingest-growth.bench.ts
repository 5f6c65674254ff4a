/**
 * Ingest as the store grows: BENCH_EVENTS events (default 10M) through Segment's `/v1/batch`
 * (the secret key, 500 messages a request) into one fresh Lift (as built: every module's event
 * processors, the analytics engine copying behind), with the throughput of each tenth of the load
 * printed as it goes: does the last tenth run as fast as the first? (target: within 20%.)
 * The data is shaped as a site's month: BENCH_EVENTS / 20 visitors, each with 4 sessions of 5
 * events (pageviews, one in five a `track`), spread over 30 days in time order; one visitor in ten
 * comes from a campaign URL, one in five from a search referrer.
 * Run: npx tsx bench/events/ingest-growth.bench.ts        (BENCH_EVENTS=10000000, BENCH_CONNECTIONS=4)
 *      BENCH_KEEP=1 keeps the data dir (printed) for later questions of it; BENCH_PROFILE=1 profiles
 *      the server in the second and the last tenth; BENCH_FROM (below) goes on from a kept store.
 * Each tenth is closed before the next: acknowledged, then the engine's copy caught up with it,
 * so its CPU per event is all the work of its events. At the end: bytes per event of the SQLite
 * file and of the engine's file.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { summarize } from "../lib/cpu-profile.js";
import { startLift } from "./servers.js";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000_000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 4);
const PER_REQUEST = 500;
const TENTHS = 10;
// BENCH_FROM=<data dir>: start from a copy of a store this bench filled (BENCH_KEEP), going on
// with its month (BENCH_PLAN events in all, the store holding the first BENCH_START of them).
// BENCH_START without BENCH_FROM sends the same events into an empty store: the same traffic,
// with nothing stored before it.
const FROM = process.env.BENCH_FROM;
const PLAN = Number(process.env.BENCH_PLAN ?? EVENTS);
const START = Number(process.env.BENCH_START ?? 0);
const VISITORS = Math.max(1, Math.floor(PLAN / 20));
const SESSIONS = PLAN / 5;
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 9, 1);
const AGENT = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(" ");

/** When the i-th event of the month happened. */
const tsOf = (i: number) => T0 + Math.floor((Math.floor(i / 5) / SESSIONS) * 30 * DAY) + (i % 5) * 60_000;

/** The i-th event of the month as Segment's analytics-node sends it. */
function messageOf(i: number, run: string) {
  const session = Math.floor(i / 5);
  const step = i % 5;
  const visitor = session % VISITORS;
  const ts = tsOf(i);
  const campaign = visitor % 10 === 0 ? "?utm_source=newsletter&utm_medium=email&utm_campaign=fall" : "";
  const page = {
    url: `https://shop.example.com/p/${(visitor + step) % 200}${step === 0 ? campaign : ""}`,
    ...(step === 0 && visitor % 5 === 1 ? { referrer: "https://www.google.com/" } : {}),
  };
  const common = {
    anonymousId: `v${visitor}`,
    messageId: `${run}-${i}`,
    timestamp: new Date(ts).toISOString(),
    context: { page, userAgent: AGENT, library: { name: "@segment/analytics-node", version: "3.1.0" } },
  };
  return step === 4
    ? { ...common, type: "track", event: "Product Viewed", properties: { plan: "pro", i } }
    : { ...common, type: "page", properties: { path: new URL(page.url).pathname } };
}

// BENCH_PROFILE=1: the server's CPU profile of the second tenth and of the last, summed by part
// per event (bench/lib/cpu-profile.ts), to see what grows.
const PROFILE =
  process.env.BENCH_PROFILE === "1" ? mkdtempSync(path.join(tmpdir(), "lift-growth-prof-")) : null;
let dataDir: string | undefined;
if (FROM) {
  dataDir = mkdtempSync(path.join(tmpdir(), "lift-growth-from-"));
  cpSync(FROM, dataDir, { recursive: true });
  // The copy on disk before the load: its writeback (gigabytes) would fall into the first tenths.
  execFileSync("sync");
}
const MEMORY = path.join(mkdtempSync(path.join(tmpdir(), "lift-growth-mem-")), "memory.json");
const lift = await startLift({
  processors: true,
  env: {
    LOG_LEVEL: "warn",
    BENCH_MEMORY_FILE: MEMORY,
    ...(PROFILE ? { BENCH_PROFILE_DIR: PROFILE } : {}),
    ...(dataDir ? { DATA_DIR: dataDir } : {}),
  },
});
const profileToggle = (tenthDone: number) => {
  if (PROFILE && (tenthDone === 1 || tenthDone === 2 || tenthDone === TENTHS - 1 || tenthDone === TENTHS))
    lift.child.kill("SIGUSR2");
};
const auth = `Basic ${Buffer.from(`${lift.apiKey}:`).toString("base64")}`;
const run = Date.now().toString(36);
console.log(
  `ingest-growth: ${EVENTS} events, ${VISITORS} visitors, ${CONNECTIONS} connections, load ${load()}`,
);

let next = START;
const tenth = EVENTS / TENTHS;

/** The server's CPU seconds so far (utime + stime from /proc): events per CPU second is steadier than per second. */
function serverCpu(): number {
  try {
    const stat = readFileSync(`/proc/${lift.child.pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/** Sends the month's events up to `end` (exclusive), `CONNECTIONS` requests at a time. */
async function worker(end: number): Promise<void> {
  for (;;) {
    const from = next;
    if (from >= end) return;
    next = Math.min(end, from + PER_REQUEST);
    const batch = [];
    for (let i = from; i < next; i++) batch.push(messageOf(i, run));
    const res = await fetch(`${lift.base}/v1/batch`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: auth },
      body: JSON.stringify({ batch, sentAt: new Date().toISOString() }),
    });
    if (res.status !== 200) throw new Error(`/v1/batch: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  }
}

/**
 * Until the analytics engine (its own thread, copying behind the acknowledgement) holds the first
 * `stored` events of the month. A report syncs the copy with everything committed before it is
 * answered (or is refused while the copy catches up with a backlog); it asks for the `track` events
 * of one day only, the last event's, so its own cost does not grow with the store.
 */
async function caughtUp(stored: number): Promise<void> {
  const day = Math.floor(tsOf(stored - 1) / DAY);
  let expected = 0;
  for (let i = stored - 1; i >= (FROM ? 0 : START) && Math.floor(tsOf(i) / DAY) >= day - 1; i--)
    if (i % 5 === 4 && Math.floor(tsOf(i) / DAY) === day) expected++;
  const date = new Date(day * DAY).toISOString().slice(0, 10);
  const body = JSON.stringify({
    period: "custom",
    from: date,
    to: date,
    series: [{ event: "Product Viewed", measure: "total" }],
  });
  for (;;) {
    const res = await fetch(`${lift.base}/api/analytics/trends`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${lift.apiKey}` },
      body,
    }).then((r) => r.json() as Promise<{ series?: { total?: number }[] }>);
    if ((res.series?.[0]?.total ?? 0) >= expected) return;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The server's memory as it last wrote it (lift-server.ts, BENCH_MEMORY_FILE). */
function memory(): string {
  try {
    const m = JSON.parse(readFileSync(MEMORY, "utf8")) as { rss: number; heap: number; external: number };
    return `RSS ${m.rss} MB (JS heap ${m.heap} MB, outside it ${m.external} MB)`;
  } catch {
    return "memory unknown";
  }
}

// Each tenth is closed before the next starts: its events acknowledged, then the engine caught up
// with them, so its CPU is all the work its events cause (not the copy of an earlier tenth's).
if (START > 0 && FROM) await caughtUp(START);
const rates: number[] = [];
const cpuRates: number[] = [];
let mark = { at: performance.now(), cpu: serverCpu() };
for (let t = 1; t <= TENTHS; t++) {
  const end = START + t * tenth;
  await Promise.all(Array.from({ length: CONNECTIONS }, () => worker(end)));
  const acked = performance.now();
  await caughtUp(end);
  const settled = { at: performance.now(), cpu: serverCpu() };
  const eventsPerSecond = tenth / ((acked - mark.at) / 1000);
  const perCpu = tenth / (settled.cpu - mark.cpu);
  rates.push(eventsPerSecond);
  cpuRates.push(perCpu);
  profileToggle(t);
  console.log(
    `  tenth ${t}: ${Math.round(eventsPerSecond).toLocaleString("en-US")} events/s acknowledged, ` +
      `${Math.round(perCpu).toLocaleString("en-US")} per server CPU second (the engine's copy included, ` +
      `${((settled.at - acked) / 1000).toFixed(1)} s behind), load ${load()}, ${memory()}`,
  );
  mark = settled;
}
const ratio = (r: number[]) => (r[r.length - 1]! / r[0]!).toFixed(2);
const size = (f: string) => {
  try {
    return statSync(path.join(dataDir ?? lift.dataDir, f)).size;
  } catch {
    return 0;
  }
};
console.log(
  `  last tenth ÷ first tenth: ${ratio(cpuRates)} per server CPU second, ${ratio(rates)} acknowledged per second (target ≥ 0.80)`,
);
const sqliteBytes = size("lift.db") + size("lift.db-wal");
const stored = START + EVENTS;
console.log(
  `  bytes per event: SQLite ${(sqliteBytes / stored).toFixed(0)}, engine ${(size("analytics.duckdb") / stored).toFixed(0)}`,
);
if (PROFILE) {
  for (const [n, which] of [
    [1, "second tenth"],
    [2, "last tenth"],
  ] as const) {
    const file = path.join(PROFILE, `profile-${n}.cpuprofile`);
    while (!existsSync(file)) await new Promise((r) => setTimeout(r, 200));
    await new Promise((r) => setTimeout(r, 500));
    console.log(`\nwhere the server's CPU went in the ${which}:`);
    summarize(file, tenth, Number.POSITIVE_INFINITY, "event");
  }
}
if (process.env.BENCH_KEEP === "1") {
  console.log(`  data dir kept: ${dataDir ?? lift.dataDir}`);
  lift.child.kill("SIGTERM");
} else {
  await lift.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
rmSync(path.dirname(MEMORY), { recursive: true, force: true });
