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
 * At the end: bytes per event of the SQLite file and of the engine's file, and how long the
 * event processors took to catch up after the last acknowledged request.
 */
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

/** The i-th event of the month as Segment's analytics-node sends it. */
function messageOf(i: number, run: string) {
  const session = Math.floor(i / 5);
  const step = i % 5;
  const visitor = session % VISITORS;
  const ts = T0 + Math.floor((session / SESSIONS) * 30 * DAY) + step * 60_000;
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
}
const lift = await startLift({
  processors: true,
  env: {
    LOG_LEVEL: "warn",
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
let acked = 0;
const tenth = EVENTS / TENTHS;
const marks: { at: number; cpu: number }[] = [{ at: performance.now(), cpu: serverCpu() }];

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

async function worker(): Promise<void> {
  for (;;) {
    const from = next;
    if (from >= START + EVENTS) return;
    next = Math.min(START + EVENTS, from + PER_REQUEST);
    const batch = [];
    for (let i = from; i < next; i++) batch.push(messageOf(i, run));
    const res = await fetch(`${lift.base}/v1/batch`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: auth },
      body: JSON.stringify({ batch, sentAt: new Date().toISOString() }),
    });
    if (res.status !== 200) throw new Error(`/v1/batch: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
    const before = acked;
    acked += batch.length;
    if (Math.floor(acked / tenth) > Math.floor(before / tenth)) report();
  }
}

const rates: number[] = [];
function report(): void {
  const now = { at: performance.now(), cpu: serverCpu() };
  const last = marks[marks.length - 1]!;
  marks.push(now);
  const eventsPerSecond = tenth / ((now.at - last.at) / 1000);
  const perCpu = tenth / (now.cpu - last.cpu);
  rates.push(eventsPerSecond);
  profileToggle(marks.length - 1);
  console.log(
    `  tenth ${marks.length - 1}: ${Math.round(eventsPerSecond).toLocaleString("en-US")} events/s, ` +
      `${Math.round(perCpu).toLocaleString("en-US")} per server CPU second, load ${load()}`,
  );
}

await Promise.all(Array.from({ length: CONNECTIONS }, worker));
const done = performance.now();
// The processors (identity, analytics) run behind the acknowledgement: wait until a report that
// syncs sees every event, which also means the engine copied them.
const body = JSON.stringify({ period: "90d", series: [{ event: "Product Viewed", measure: "total" }] });
for (;;) {
  const res = await fetch(`${lift.base}/api/analytics/trends`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${lift.apiKey}` },
    body,
  }).then((r) => r.json() as Promise<{ series?: { total?: number }[] }>);
  if ((res.series?.[0]?.total ?? 0) >= (START + EVENTS) / 5) break;
  await new Promise((r) => setTimeout(r, 1000));
}
const caughtUp = (performance.now() - done) / 1000;
const first = rates[0]!;
const lastRate = rates[rates.length - 1]!;
const size = (f: string) => {
  try {
    return statSync(path.join(dataDir ?? lift.dataDir, f)).size;
  } catch {
    return 0;
  }
};
console.log(`  last tenth ÷ first tenth: ${(lastRate / first).toFixed(2)} (target ≥ 0.80)`);
console.log(`  engine and processors caught up ${caughtUp.toFixed(1)} s after the last acknowledgement`);
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
