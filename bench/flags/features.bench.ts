/**
 * GET /api/features/:clientKey (GrowthBook's SDK payload) on Lift with 200 flags vs a bare Fastify
 * route answering the same bytes, and both answering 304 to If-None-Match; 50 connections, in
 * interleaved rounds of the same run (the machine is shared), median of the per-round ratios.
 * Run: npx tsx bench/flags/features.bench.ts   (BENCH_ROUNDS=5 × BENCH_SECONDS=4 by default)
 */
import { load as run, median, startNode } from "../lib/servers.js";
import { keysOf, seedFlags } from "./seed.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = 50;

const lift = await startNode("src/main.ts", {
  ADMIN_EMAIL: "bench@example.com",
  ADMIN_PASSWORD: "bench bench bench",
});
let bare: Awaited<ReturnType<typeof startNode>> | null = null;
try {
  const { apiKey, publicKey } = keysOf(lift.output());
  await seedFlags(lift.base, apiKey);
  const url = `${lift.base}/api/features/${publicKey}`;
  const first = await fetch(url);
  const body = await first.text();
  const etag = first.headers.get("etag")!;
  bare = await startNode("bench/flags/bare-features-server.ts", { BARE_BODY: body, BARE_ETAG: etag });
  const bareUrl = `${bare.base}/api/features/${publicKey}`;
  const bareBody = await (await fetch(bareUrl)).text();
  if (bareBody !== body) throw new Error("the baseline answers other bytes");

  const measure = async (name: string, headers?: Record<string, string>) => {
    const load = (u: string, seconds: number) =>
      run({ url: u, connections: CONNECTIONS, seconds, ...(headers ? { headers: () => headers } : {}) });
    await load(bareUrl, 2);
    await load(url, 2);
    const ratios: number[] = [];
    const liftRps: number[] = [];
    const bareRps: number[] = [];
    const liftP99: number[] = [];
    let non2xx = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which server goes first: load drifts during a run.
      const b1 = round % 2 === 0 ? await load(bareUrl, SECONDS) : null;
      const l = await load(url, SECONDS);
      const b = b1 ?? (await load(bareUrl, SECONDS));
      non2xx += l.non2xx;
      ratios.push(l.rps / b.rps);
      liftRps.push(l.rps);
      bareRps.push(b.rps);
      liftP99.push(l.p99);
    }
    const fmt = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(" / ");
    console.log(`\n${name}`);
    console.log(`  bare Fastify : ${fmt(bareRps)} req/s (median ${median(bareRps).toFixed(0)})`);
    console.log(
      `  Lift         : ${fmt(liftRps)} req/s (median ${median(liftRps).toFixed(0)}, p99 ${median(liftP99)} ms)`,
    );
    console.log(`  per-round ratios: ${ratios.map((r) => r.toFixed(2)).join(" ")}`);
    console.log(`  ratio Lift/bare (median): ${median(ratios).toFixed(2)} (target >= 0.8)`);
    return non2xx;
  };
  console.log(
    `payload: ${body.length} bytes, 200 flags; ${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections`,
  );
  const errors200 = await measure("200 (full payload)");
  // autocannon counts 304 as non-2xx; a wrong ETag would answer 200 instead, which this checks.
  const check = await fetch(url, { headers: { "if-none-match": etag } });
  if (check.status !== 304) throw new Error(`expected 304, got ${check.status}`);
  await measure("304 (If-None-Match)", { "if-none-match": etag });
  if (errors200 > 0) throw new Error(`Lift answered ${errors200} non-2xx responses`);
} finally {
  await bare?.stop();
  await lift.stop();
}
