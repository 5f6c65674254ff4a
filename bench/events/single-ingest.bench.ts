/**
 * Single-event ingest throughput: POST /api/events (snippet format, one event per request,
 * group-committed) vs a bare Fastify route returning 200, 50 connections each, same run.
 * Lift runs twice: as built (all modules' event processors) and with processors unregistered.
 * Run: npx tsx bench/events/single-ingest.bench.ts   (BENCH_SECONDS=10 by default)
 */
import { type LoadResult, load, startLift, startNode } from "./servers.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = 50;

const body = (key: string) => (i: number) =>
  JSON.stringify({
    type: "pageview",
    visitorId: `v${i % 5000}`,
    projectKey: key,
    url: `https://shop.example.com/p/${i % 100}?utm_source=newsletter&utm_medium=email`,
    referrer: "https://www.google.com/",
    data: { plan: "pro", i },
  });

async function bare(): Promise<LoadResult> {
  const s = await startNode("bench/events/bare-server.ts");
  try {
    await load(`${s.base}/api/events`, CONNECTIONS, 2, body("k")); // warm-up
    return await load(`${s.base}/api/events`, CONNECTIONS, SECONDS, body("k"));
  } finally {
    await s.stop();
  }
}

async function lift(processors: boolean): Promise<LoadResult> {
  const s = await startLift({ processors });
  try {
    await load(`${s.base}/api/events`, CONNECTIONS, 2, body(s.publicKey));
    const r = await load(`${s.base}/api/events`, CONNECTIONS, SECONDS, body(s.publicKey));
    if (r.non2xx > 0) throw new Error(`Lift answered ${r.non2xx} non-2xx responses`);
    return r;
  } finally {
    await s.stop();
  }
}

// Servers run one at a time (2 cores); the baseline is measured before and after Lift.
const b1 = await bare();
const full = await lift(true);
const alone = await lift(false);
const b2 = await bare();
const baseline = (b1.rps + b2.rps) / 2;
const line = (name: string, r: LoadResult) =>
  `${name.padEnd(34)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  ratio ${(r.rps / baseline).toFixed(2)}`;
console.log(`bare Fastify (before / after)      ${b1.rps.toFixed(0)} / ${b2.rps.toFixed(0)} req/s`);
console.log(line("Lift, all event processors", full));
console.log(line("Lift, events module alone", alone));
console.log("target: ratio >= 0.5");
