/**
 * The cost of the JSON body checks (depth and finite numbers) on the ingest path: parseJsonBody
 * against bare JSON.parse on the same 500-event batch body, interleaved in the same run.
 * Run: npx tsx bench/platform/json-body.bench.ts   (BENCH_ROUNDS=7, BENCH_ITERATIONS=400)
 */
import { parseJsonBody } from "../../src/platform/json-body.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 400);

const body = JSON.stringify({
  projectKey: "svc_key_bench",
  events: Array.from({ length: 500 }, (_, i) => ({
    type: i % 10 === 0 ? "purchase" : "pageview",
    visitorId: `v-${i % 97}`,
    url: `https://shop.example.com/p/${i % 100}?utm_source=google&utm_medium=cpc`,
    referrer: i % 7 === 0 ? "https://www.google.com/" : undefined,
    timestamp: new Date(1_700_000_000_000 + i * 1000).toISOString(),
    data: i % 10 === 0 ? { revenue: 19.99, currency: "USD", items: [{ sku: "A1", qty: 2 }] } : undefined,
  })),
});

function time(fn: (s: string) => unknown): number {
  const start = process.hrtime.bigint();
  for (let i = 0; i < ITERATIONS; i++) fn(body);
  return Number(process.hrtime.bigint() - start) / 1e6 / ITERATIONS;
}

time(JSON.parse);
time(parseJsonBody);
const ratios: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const bare = time(JSON.parse);
  const checked = time(parseJsonBody);
  ratios.push(checked / bare);
  console.log(`round ${r + 1}: JSON.parse ${bare.toFixed(3)} ms, parseJsonBody ${checked.toFixed(3)} ms`);
}
ratios.sort((a, b) => a - b);
console.log(
  `body ${(body.length / 1024).toFixed(0)} KiB, 500 events; median cost ratio parseJsonBody / JSON.parse = ${ratios[Math.floor(ratios.length / 2)]!.toFixed(2)}`,
);
