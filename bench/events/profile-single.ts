/**
 * Where a single-event request's CPU goes, per server of the single-event benchmark: each server is
 * started with `--cpu-prof`, loaded as single-ingest.bench.ts loads it (50 connections, snippet
 * pageviews), stopped, and its profile's self time is summed by category and divided by the
 * requests served: µs per request in Node's core (HTTP, sockets, streams), Fastify and its
 * plugins, each Lift module and the platform, SQLite calls (native time shows under the JS line
 * that calls it, so it is named by that file), GC, and idle.
 * Run: npx tsx bench/events/profile-single.ts   (BENCH_SECONDS=8, BENCH_TOP=25 lines of functions,
 *      BENCH_CATEGORY="Node core" to list only that part's functions, BENCH_SERVERS=1,3 to profile
 *      only those of the list below, counted from 1)
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Running, startNode } from "../lib/servers.js";
import { loadEvents, singleEventBody, startLift } from "./servers.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const TOP = Number(process.env.BENCH_TOP ?? 25);
/** BENCH_CATEGORY="Node core" (or any category printed): the top functions of that part alone. */
const ONLY_CATEGORY = process.env.BENCH_CATEGORY;

interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

/** A category for a profile frame: what part of the stack its self time belongs to. */
function categoryOf(url: string, fn: string): string {
  // Native functions without a script: the socket writes (`writev`) and V8's own entries.
  if (!url) return fn.startsWith("(") ? fn : `native ${fn}`;
  if (url.startsWith("node:")) return "Node core";
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm)
    return /fastify|find-my-way|avvio|light-my-request|pino|fast-json|secure-json/.test(nm[1]!)
      ? "Fastify and its parts"
      : `package ${nm[1]}`;
  const mod = /src\/modules\/([^/]+)\//.exec(url);
  if (mod) return `Lift ${mod[1]}`;
  if (url.includes("/src/")) return "Lift platform/app";
  return `other ${path.basename(url)}`;
}

function summarize(profileFile: string, requests: number): void {
  const p = JSON.parse(readFileSync(profileFile, "utf8")) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const perCategory = new Map<string, number>();
  const perFunction = new Map<string, number>();
  let total = 0;
  // Only the measured load: the profile's last `SECONDS` (start-up and warm-up come before it;
  // after it, the stop is a few idle milliseconds).
  const span = p.timeDeltas.reduce((a, b) => a + b, 0);
  let at = 0;
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    at += dt;
    if (at < span - SECONDS * 1e6) return;
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const cat = categoryOf(url, functionName);
    perCategory.set(cat, (perCategory.get(cat) ?? 0) + dt);
    total += dt;
    const where = url.replace(/^file:\/\/.*?\/(src|node_modules|bench)\//, "$1/");
    const key = `${functionName || "(anonymous)"} ${where}:${lineNumber + 1}`;
    if (ONLY_CATEGORY && cat !== ONLY_CATEGORY) return;
    perFunction.set(key, (perFunction.get(key) ?? 0) + dt);
  });
  const busy = total - (perCategory.get("(idle)") ?? 0);
  const line = ([k, v]: [string, number]) =>
    `  ${(v / requests).toFixed(2).padStart(7)} µs/request  ${((100 * v) / busy).toFixed(1).padStart(5)}% of busy  ${k}`;
  console.log(
    `  busy ${(busy / requests).toFixed(2)} µs per request (${requests.toLocaleString("en")} requests)`,
  );
  for (const e of [...perCategory].sort((a, b) => b[1] - a[1])) if (e[0] !== "(idle)") console.log(line(e));
  console.log("  top functions:");
  for (const e of [...perFunction].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(line(e));
}

const servers: { name: string; path?: string; start: () => Promise<Running & { publicKey?: string }> }[] = [
  { name: "bare Fastify", start: () => startNode("bench/events/bare-server.ts") },
  { name: "bare Fastify + SQLite row", start: () => startNode("bench/events/bare-store-server.ts") },
  {
    name: "Lift's HTTP shell, no work",
    path: "/bench/shell",
    start: () => startLift({ processors: true, env: { LOG_LEVEL: "info" } }),
  },
  { name: "Lift, events module alone", start: () => startLift({ processors: false }) },
  { name: "Lift as built", start: () => startLift({ processors: true, env: { LOG_LEVEL: "info" } }) },
];
const only = process.env.BENCH_SERVERS?.split(",");
for (const s of servers.filter((_, i) => !only || only.includes(String(i + 1)))) {
  const dir = mkdtempSync(path.join(tmpdir(), "lift-prof-"));
  process.env.BENCH_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${dir}`;
  const server = await s.start();
  const url = `${server.base}${s.path ?? "/api/events"}`;
  await loadEvents(url, 50, 2, singleEventBody(server.publicKey ?? "k")); // warm-up, in the profile too
  const res = await loadEvents(url, 50, SECONDS, singleEventBody(server.publicKey ?? "k"));
  await server.stop();
  const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
  if (!file) throw new Error(`${s.name}: no profile written`);
  const requests = Math.round(res.rps * SECONDS);
  console.log(`\n${s.name}: ${res.rps.toFixed(0)} req/s under load`);
  summarize(path.join(dir, file), requests);
  rmSync(dir, { recursive: true, force: true });
}
