/**
 * PostHog's remote flags (POST /flags?v=2, what posthog-js and posthog-node ask) against the
 * GrowthBook SDK payload route (GET /api/features/:clientKey, the cached JSON every GrowthBook SDK
 * loads) and remote evaluation (POST /api/eval/:clientKey, the same evaluation /flags runs), on
 * one Lift with 200 flags, in interleaved rounds of the same run (the machine is shared); each
 * round's ratios, the figure is their median. /flags and /api/eval evaluate every flag for a new
 * distinct id each request; the payload route sends the same bytes to everyone.
 * Run: npx tsx bench/flags/posthog-flags.bench.ts   (BENCH_ROUNDS=5 × BENCH_SECONDS=4 by default)
 */
import { cpuSeconds, load, median, startNode } from "../lib/servers.js";
import { keysOf, seedFlags } from "./seed.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = 50;

const lift = await startNode("src/main.ts", {
  ADMIN_EMAIL: "bench@example.com",
  ADMIN_PASSWORD: "bench bench bench",
  // The per-address SDK limits would answer most of one machine's load with 429.
  RATE_LIMIT_EVENTS: "0",
});
try {
  const { apiKey, publicKey } = keysOf(lift.output());
  await seedFlags(lift.base, apiKey);
  const routes = {
    payload: { url: `${lift.base}/api/features/${publicKey}` },
    eval: {
      url: `${lift.base}/api/eval/${publicKey}`,
      body: (n: number) => JSON.stringify({ attributes: { id: `user-${n}`, country: "DE" } }),
    },
    flags: {
      url: `${lift.base}/flags/?v=2`,
      body: (n: number) =>
        JSON.stringify({ token: publicKey, distinct_id: `user-${n}`, person_properties: { country: "DE" } }),
    },
  };
  type Name = keyof typeof routes;
  const names = Object.keys(routes) as Name[];
  const run = async (name: Name, seconds: number) => {
    const before = cpuSeconds(lift.child.pid!);
    const r = await load({ ...routes[name], connections: CONNECTIONS, seconds });
    if (r.non2xx > 0) throw new Error(`${name}: ${r.non2xx} answers were not 2xx`);
    return { ...r, cpuUs: ((cpuSeconds(lift.child.pid!) - before) * 1e6) / (r.rps * seconds) };
  };
  for (const name of names) await run(name, 2);
  const rows = new Map<Name, { rps: number[]; p99: number[]; cpuUs: number[] }>(
    names.map((n) => [n, { rps: [], p99: [], cpuUs: [] }]),
  );
  const ratios = { payload: [] as number[], eval: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    // Rotate which route goes first: load drifts during a run.
    const order = [...names.slice(round % 3), ...names.slice(0, round % 3)];
    const got = new Map<Name, number>();
    for (const name of order) {
      const r = await run(name, SECONDS);
      const row = rows.get(name)!;
      row.rps.push(r.rps);
      row.p99.push(r.p99);
      row.cpuUs.push(r.cpuUs);
      got.set(name, r.rps);
    }
    ratios.payload.push(got.get("flags")! / got.get("payload")!);
    ratios.eval.push(got.get("flags")! / got.get("eval")!);
  }
  console.log(`200 flags, ${CONNECTIONS} connections, ${ROUNDS} rounds × ${SECONDS} s`);
  for (const [name, r] of rows)
    console.log(
      `${name.padEnd(8)} median ${median(r.rps).toFixed(0).padStart(6)} req/s  p99 ${median(r.p99)} ms  server CPU ${median(r.cpuUs).toFixed(0)} µs/request`,
    );
  console.log(
    `/flags ÷ payload route: ${median(ratios.payload).toFixed(2)} (rounds ${ratios.payload.map((x) => x.toFixed(2)).join(" ")})`,
  );
  console.log(
    `/flags ÷ remote evaluation: ${median(ratios.eval).toFixed(2)} (rounds ${ratios.eval.map((x) => x.toFixed(2)).join(" ")})`,
  );
} finally {
  await lift.stop();
}
