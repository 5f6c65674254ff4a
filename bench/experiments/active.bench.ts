/**
 * GET /api/experiments/active?key=… on Lift (3 running experiments, SQLite, rate limits off) vs a
 * bare Fastify route answering the same JSON body, 50 connections each, same run.
 * Run: npx tsx bench/experiments/active.bench.ts   (BENCH_ROUNDS=5 × BENCH_SECONDS=4 by default)
 */
import { load as run, median, startNode } from "../lib/servers.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONNECTIONS = 50;
const start = startNode;
const load = (url: string, seconds: number) => run({ url, connections: CONNECTIONS, seconds });

const lift = await start("src/main.ts", {
  ADMIN_EMAIL: "bench@example.com",
  ADMIN_PASSWORD: "bench bench bench",
});
let bare: Awaited<ReturnType<typeof start>> | null = null;
try {
  const publicKey = /public key:\s+(\S+)/.exec(lift.output())?.[1];
  const apiKey = /project API key:\s+(\S+)/.exec(lift.output())?.[1];
  if (!publicKey || !apiKey) throw new Error(`no keys printed: ${lift.output()}`);
  const headers = { "content-type": "application/json", "x-api-key": apiKey };
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${lift.base}/api/experiments`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        name: `Exp ${i}`,
        targetUrl: `/landing-${i}*`,
        trafficSplit: 80,
        variants: [{ name: "control" }, { name: "b", css: `.hero-${i}{color:#c00}`, js: "console.log('b')" }],
      }),
    });
    const { id } = (await res.json()) as { id: string };
    await fetch(`${lift.base}/api/experiments`, {
      method: "PATCH",
      headers,
      body: JSON.stringify({ id, status: "running" }),
    });
  }
  const url = `${lift.base}/api/experiments/active?key=${publicKey}`;
  const body = await (await fetch(url)).text();
  bare = await start("bench/experiments/bare-active-server.ts", { BARE_BODY: body });
  const bareUrl = `${bare.base}/api/experiments/active?key=${publicKey}`;
  // The machine is shared, so load drifts during a run: measure in interleaved short rounds
  // (alternating which server goes first) and report the median of the per-round ratios.
  await load(bareUrl, 2);
  await load(url, 2);
  const ratios: number[] = [];
  const liftRps: number[] = [];
  const bareRps: number[] = [];
  let non2xx = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const first = round % 2 === 0;
    const b1 = first ? await load(bareUrl, SECONDS) : null;
    const l = await load(url, SECONDS);
    const b = b1 ?? (await load(bareUrl, SECONDS));
    non2xx += l.non2xx;
    ratios.push(l.rps / b.rps);
    liftRps.push(l.rps);
    bareRps.push(b.rps);
  }
  const fmt = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(" / ");
  console.log(`body: ${body.length} bytes, 3 running experiments; ${ROUNDS} rounds of ${SECONDS} s each`);
  console.log(`bare Fastify             : ${fmt(bareRps)} req/s (median ${median(bareRps).toFixed(0)})`);
  console.log(`Lift /experiments/active : ${fmt(liftRps)} req/s (median ${median(liftRps).toFixed(0)})`);
  console.log(`per-round ratios: ${ratios.map((r) => r.toFixed(2)).join(" ")}`);
  console.log(`ratio Lift/bare (median): ${median(ratios).toFixed(2)} (target >= 0.5)`);
  if (non2xx > 0) throw new Error(`Lift answered ${non2xx} non-2xx responses`);
} finally {
  await bare?.stop();
  await lift.stop();
}
