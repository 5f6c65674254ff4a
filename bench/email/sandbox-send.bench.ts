/**
 * Sandbox sends/s through the whole HTTP stack (key auth, per-key tier limit, validation, render,
 * send record + timeline written to SQLite) vs a bare Fastify route, 50 connections, same run.
 * Run: npx tsx bench/email/sandbox-send.bench.ts   (BENCH_SECONDS=5 per run, BENCH_ROUNDS=3; BENCH_TEMPLATE=1
 * sends the password-reset template instead of inline html)
 */
import { load as run, startNode } from "../lib/servers.js";

const load = (
  url: string,
  connections: number,
  seconds: number,
  headers: (i: number) => Record<string, string>,
  body: (i: number) => string,
) => run({ url, connections, seconds, headers, body });

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = 50;
const TEMPLATE = process.env.BENCH_TEMPLATE === "1";

const bare = await startNode("bench/email/bare-server.ts");
const lift = await startNode("bench/email/lift-server.ts", { KEYS: "100" });
const keys = JSON.parse(/KEYS (\[.*\])/.exec(lift.output())![1]!) as string[];
const headers = (i: number) => ({
  authorization: `Bearer ${keys[i % keys.length]}`,
  "x-svc-mode": "sandbox",
});
const body = (i: number) =>
  JSON.stringify(
    TEMPLATE
      ? {
          to: `user${i}@example.com`,
          commId: "password-reset",
          variables: { resetUrl: `https://app.example.com/reset?t=${i}` },
          tags: { flow: "reset" },
        }
      : {
          to: `user${i}@example.com`,
          subject: `Your code ${i}`,
          html: `<p>Your code is <b>${i}</b>. <a href="https://app.example.com/v?c=${i}">Verify</a></p>`,
          tags: { flow: "login" },
        },
  );
const url = "/api/v1/transactional/send";
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
try {
  await load(bare.base + url, CONNECTIONS, 2, headers, body);
  await load(lift.base + url, CONNECTIONS, 2, headers, body);
  // Other work shares the two cores and its load swings within seconds: alternate short rounds and
  // take the median of the per-round ratios (Lift vs the mean of the bare runs around it).
  const bares = [await load(bare.base + url, CONNECTIONS, SECONDS, headers, body)];
  const lifts = [];
  for (let r = 0; r < ROUNDS; r++) {
    lifts.push(await load(lift.base + url, CONNECTIONS, SECONDS, headers, body));
    bares.push(await load(bare.base + url, CONNECTIONS, SECONDS, headers, body));
  }
  const ratios = lifts.map((l, r) => l.rps / ((bares[r]!.rps + bares[r + 1]!.rps) / 2));
  // Context: the same route answering 401 (no key): Lift's routing, hooks and error formatting,
  // without body parsing or any send work.
  const floor = await load(lift.base + url, CONNECTIONS, SECONDS, () => ({}), body);
  const last = lifts[lifts.length - 1]!;
  console.log(
    `shape: ${TEMPLATE ? "template (password-reset)" : "inline html"}, ${ROUNDS} rounds of ${SECONDS} s`,
  );
  console.log(`bare Fastify      : ${bares.map((b) => b.rps.toFixed(0)).join(" / ")} req/s`);
  console.log(
    `Lift sandbox send : ${lifts.map((l) => l.rps.toFixed(0)).join(" / ")} sends/s (last: p50 ${last.p50} ms, p99 ${last.p99} ms)`,
  );
  console.log(`per-round ratios  : ${ratios.map((x) => x.toFixed(2)).join(" / ")}`);
  console.log(`Lift 401 (no key) : ${floor.rps.toFixed(0)} req/s (auth fails before the body is read)`);
  console.log(`ratio Lift/bare   : ${median(ratios).toFixed(2)} median (target >= 0.3)`);
  const bad = lifts.reduce((n, l) => n + l.non2xx, 0);
  if (bad > 0) throw new Error(`Lift answered ${bad} non-2xx responses`);
} finally {
  await bare.stop();
  await lift.stop();
}
