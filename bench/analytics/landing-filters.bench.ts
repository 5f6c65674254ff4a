/**
 * The filters read from a session's landing URL (`utm_*`) and the page without its query
 * (`page_no_query`) against their neighbours (`device`, `page`), on the engine bench's seed
 * (seed-explore.ts; its URLs carry no UTM tags, and a landing tag costs the same whatever they
 * hold): the summary and the web view's headline, through Lift (fastify.inject), SQLite.
 * Run: BENCH_EVENTS=1000000 BENCH_RUNS=5 npx tsx bench/analytics/landing-filters.bench.ts
 */
import { loadavg } from "node:os";
import { buildApp } from "../../src/app.js";
import { provisionWorkspace } from "../../src/modules/workspace/bootstrap.js";
import { benchConfig } from "../lib/config.js";
import { quantile, timedRuns } from "../lib/timing.js";
import { seedExplore } from "./seed-explore.js";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const app = await buildApp(benchConfig("utm"), { logger: false });
await app.ready();
const p = await provisionWorkspace(app.db, { name: "bench", email: "bench@example.com" });
const seeded = await seedExplore(app.db, false, app.dbHandle.sqlite, p.project.id, EVENTS, Date.now());
app.dbHandle.sqlite!.exec("analyze");
await (app.deps.engine as any).sync();
console.log(`seeded ${seeded.events} events, ${seeded.visitors} visitors`);
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
const f = (c: unknown) => encodeURIComponent(JSON.stringify([c]));
const qs: Record<string, () => Promise<unknown>> = {};
for (const [label, c] of [
  ["device is mobile", { key: "device", op: "is", value: "mobile" }],
  ["utm_medium is cpc", { key: "utm_medium", op: "is", value: "cpc" }],
  ["utm_medium is (none)", { key: "utm_medium", op: "is", value: "(none)" }],
  ["page is …/pricing", { key: "page", op: "is", value: "https://shop.example.com/pricing" }],
  [
    "page_no_query is …/pricing",
    { key: "page_no_query", op: "is", value: "https://shop.example.com/pricing" },
  ],
] as const) {
  qs[`summary 30d, ${label}`] = () => call("GET", `/api/analytics/summary?period=30d&filter=${f(c)}`);
  qs[`web 30d headline, ${label}`] = () =>
    call("POST", "/api/analytics/web", { period: "30d", lists: [], filter: [c] });
}
for (const [label, fn] of Object.entries(qs)) {
  await fn();
  const times = await timedRuns(fn, RUNS);
  console.log(
    `${label.padEnd(45)} p50 ${quantile(times, 0.5).toFixed(0)} ms, max ${times[RUNS - 1]!.toFixed(0)} ms; load ${loadavg()[0]!.toFixed(1)}`,
  );
}
await app.close();
