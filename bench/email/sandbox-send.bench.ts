/**
 * Sandbox sends/s through the whole HTTP stack (key auth, per-key tier limit, validation, render,
 * send record + timeline written to SQLite) vs a bare Fastify route, 50 connections, same run.
 * Run: npx tsx bench/email/sandbox-send.bench.ts   (BENCH_SECONDS=10 by default; BENCH_TEMPLATE=1
 * sends the password-reset template instead of inline html)
 */
import { load, startNode } from "./servers.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
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
try {
  await load(bare.base + url, CONNECTIONS, 2, headers, body);
  await load(lift.base + url, CONNECTIONS, 2, headers, body);
  const b1 = await load(bare.base + url, CONNECTIONS, SECONDS, headers, body);
  const l = await load(lift.base + url, CONNECTIONS, SECONDS, headers, body);
  // Context: the same route answering 401 (no key): Lift's routing, hooks and error formatting,
  // without body parsing or any send work.
  const floor = await load(lift.base + url, CONNECTIONS, SECONDS, () => ({}), body);
  const b2 = await load(bare.base + url, CONNECTIONS, SECONDS, headers, body);
  const baseline = (b1.rps + b2.rps) / 2;
  console.log(`shape: ${TEMPLATE ? "template (password-reset)" : "inline html"}`);
  console.log(
    `bare Fastify      : ${b1.rps.toFixed(0)} / ${b2.rps.toFixed(0)} req/s (p50 ${b1.p50} ms, p99 ${b1.p99} ms)`,
  );
  console.log(
    `Lift sandbox send : ${l.rps.toFixed(0)} sends/s (p50 ${l.p50} ms, p99 ${l.p99} ms, non-2xx ${l.non2xx})`,
  );
  console.log(
    `Lift 401 (no key) : ${floor.rps.toFixed(0)} req/s → ratio ${(floor.rps / baseline).toFixed(2)} (auth fails before the body is read: routing + hooks only)`,
  );
  console.log(`ratio Lift/bare   : ${(l.rps / baseline).toFixed(2)} (target >= 0.3)`);
  if (l.non2xx > 0) throw new Error(`Lift answered ${l.non2xx} non-2xx responses`);
} finally {
  await bare.stop();
  await lift.stop();
}
