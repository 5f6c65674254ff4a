/**
 * Ingest before and after a change, in the same run: Lift from a git revision (unpacked with
 * `git archive`, sharing this checkout's node_modules) and Lift from this working tree, each with
 * every event processor and with the events module alone, beside bare Fastify. All servers are up;
 * one is loaded at a time, in rotating order per round, so the machine's load falls on both sides
 * alike. Per server: requests per second, the median of its per-round ratios to bare Fastify, and
 * its own CPU per event (from /proc, steadier than rates on a shared machine).
 * Run: [BENCH_BEFORE=<rev, default HEAD>] npx tsx bench/events/before-after.bench.ts
 *      (BENCH_SHAPE=single | batch, BENCH_ROUNDS=8, BENCH_SECONDS=4)
 * single: one snippet pageview per request, 50 connections (single-ingest.bench.ts's load);
 * batch: 500 events per request, 8 connections (batch-ingest.bench.ts's events), with the secret
 * key, or the public key where the revision takes no secret key in the body.
 */
import { execSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ROOT, cpuSeconds, median, startNode } from "../lib/servers.js";
import { loadEvents, singleEventBody } from "./servers.js";

// By default the last commit: an uncommitted change against what it changes.
const BEFORE = process.env.BENCH_BEFORE ?? "HEAD";
const SHAPE = process.env.BENCH_SHAPE ?? "single";
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const PER_REQUEST = SHAPE === "batch" ? 500 : 1;
const CONNECTIONS = SHAPE === "batch" ? 8 : 50;

const eventOf = (i: number) => ({
  type: i % 10 === 0 ? "click" : "pageview",
  visitorId: `v${i % 20_000}`,
  url: `https://shop.example.com/p/${i % 100}`,
  referrer: i % 7 === 0 ? "https://www.google.com/" : undefined,
  data: { plan: "pro", i },
});
/** 200 batches built once, so that the client spends its CPU on sending. */
function batchBody(key: string): () => string {
  const pool = Array.from({ length: 200 }, (_, b) =>
    JSON.stringify({ projectKey: key, events: Array.from({ length: 500 }, (_, j) => eventOf(b * 500 + j)) }),
  );
  let n = 0;
  return () => pool[n++ % pool.length]!;
}

type Lift = Awaited<ReturnType<typeof startNode>> & { publicKey: string; apiKey: string };
type StartLift = (o: { processors: boolean; env?: NodeJS.ProcessEnv }) => Promise<Lift>;

/** The key a batch goes with: the secret one, unless the version refuses it in the body. */
async function batchKey(s: Lift): Promise<string> {
  for (const key of [s.apiKey, s.publicKey]) {
    const res = await fetch(`${s.base}/api/events`, { method: "POST", body: batchBody(key)() });
    if (res.ok) return key;
  }
  throw new Error(`${s.base}: a batch of 500 is refused with either key`);
}

const dir = mkdtempSync(path.join(tmpdir(), "lift-before-"));
execSync(`git archive ${BEFORE} | tar -x -C ${dir}`, { cwd: ROOT, shell: "/bin/bash" });
symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
const trees = [
  { name: `before (${BEFORE})`, start: (await import(path.join(dir, "bench/events/servers.ts"))).startLift },
  { name: "after (working tree)", start: (await import("./servers.js")).startLift },
] as { name: string; start: StartLift }[];

const bare = await startNode("bench/events/bare-server.ts");
const targets = [{ name: "bare Fastify", server: bare, body: singleEventBody("k") as (i: number) => string }];
if (SHAPE === "batch") targets[0]!.body = batchBody("k");
for (const t of trees)
  for (const processors of [true, false]) {
    const s = await t.start({ processors, env: { LOG_LEVEL: processors ? "info" : "warn" } });
    const body = SHAPE === "batch" ? batchBody(await batchKey(s)) : singleEventBody(s.publicKey);
    targets.push({
      name: `${t.name}, ${processors ? "all processors" : "events module alone"}`,
      server: s,
      body,
    });
  }
try {
  for (const t of targets) await loadEvents(`${t.server.base}/api/events`, CONNECTIONS, 2, t.body);
  const rps: number[][] = targets.map(() => []);
  const cpu: number[][] = targets.map(() => []);
  for (let r = 0; r < ROUNDS; r++)
    for (let k = 0; k < targets.length; k++) {
      const i = (r + k) % targets.length;
      const t = targets[i]!;
      const before = cpuSeconds(t.server.child.pid!);
      const res = await loadEvents(`${t.server.base}/api/events`, CONNECTIONS, SECONDS, t.body);
      if (res.non2xx > 0) throw new Error(`${t.name}: ${res.non2xx} non-2xx responses`);
      rps[i]!.push(res.rps);
      cpu[i]!.push(((cpuSeconds(t.server.child.pid!) - before) * 1e6) / (res.rps * PER_REQUEST * SECONDS));
    }
  for (let i = 0; i < targets.length; i++) {
    const ratio = median(rps[i]!.map((x, r) => x / rps[0]![r]!));
    console.log(
      `${targets[i]!.name.padEnd(48)} req/s ${rps[i]!.map((x) => x.toFixed(0)).join(" / ")}  ratio ${ratio.toFixed(2)}  CPU µs/event median ${median(cpu[i]!).toFixed(1)}, least ${Math.min(...cpu[i]!).toFixed(1)}`,
    );
  }
  console.log(
    `${SHAPE}: ${ROUNDS} rounds x ${SECONDS} s, ${CONNECTIONS} connections, ${PER_REQUEST} per request`,
  );
} finally {
  await Promise.all(targets.map((t) => t.server.stop()));
  rmSync(dir, { recursive: true, force: true });
}
