/**
 * GET /api/features/:clientKey (GrowthBook's SDK payload) on Lift with 200 flags vs a bare Fastify
 * route answering the same bytes, and both answering 304 to If-None-Match; 50 connections, in
 * interleaved rounds of the same run (the machine is shared), median of the per-round ratios.
 * Besides throughput, each server's CPU time per request (from /proc, so other processes' load
 * does not enter it).
 * Run: npx tsx bench/flags/features.bench.ts   (BENCH_ROUNDS=5 × BENCH_SECONDS=4 by default)
 */
import { load as autocannon, cpuSeconds, median, startNode } from "../lib/servers.js";
import { compareWithRecorded } from "../lib/recorded.js";
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

  const pidOf = (u: string) => (u.startsWith(lift.base) ? lift.child.pid! : bare!.child.pid!);
  const measure = async (name: string, headers?: Record<string, string>) => {
    const cpu = new Map<string, number[]>();
    const load = async (u: string, seconds: number) => {
      const before = cpuSeconds(pidOf(u));
      const r = await autocannon({
        url: u,
        connections: CONNECTIONS,
        seconds,
        ...(headers ? { headers: () => headers } : {}),
      });
      const perRequest = ((cpuSeconds(pidOf(u)) - before) * 1e6) / (r.rps * seconds);
      cpu.set(u, [...(cpu.get(u) ?? []), perRequest]);
      return r;
    };
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
    compareWithRecorded(`flags payload ${name} ÷ bare Fastify`, median(ratios));
    const bareCpu = median(cpu.get(bareUrl)!);
    const liftCpu = median(cpu.get(url)!);
    console.log(
      `  server CPU per request (median): bare ${bareCpu.toFixed(0)} µs, Lift ${liftCpu.toFixed(0)} µs → ratio ${(bareCpu / liftCpu).toFixed(2)}`,
    );
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
  // Lift's floor per request, for scale: an existing public endpoint's 304 (the snippet's cached
  // experiment list), same server, same run.
  const active = `${lift.base}/api/experiments/active?key=${publicKey}`;
  const activeEtag = (await fetch(active)).headers.get("etag")!;
  const floor: number[] = [];
  for (let i = 0; i < 3; i++) {
    const before = cpuSeconds(lift.child.pid!);
    const r = await autocannon({
      url: active,
      connections: CONNECTIONS,
      seconds: SECONDS,
      headers: () => ({ "if-none-match": activeEtag }),
    });
    floor.push(((cpuSeconds(lift.child.pid!) - before) * 1e6) / (r.rps * SECONDS));
  }
  console.log(`
Lift GET /api/experiments/active 304, CPU per request (median of 3): ${median(floor).toFixed(0)} µs`);
  if (errors200 > 0) throw new Error(`Lift answered ${errors200} non-2xx responses`);
} finally {
  await bare?.stop();
  await lift.stop();
}
