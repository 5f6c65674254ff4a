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
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { summarize } from "../lib/cpu-profile.js";
import { type Running, startNode } from "../lib/servers.js";
import { loadEvents, singleEventBody, startLift } from "./servers.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);

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
  summarize(path.join(dir, file), requests, SECONDS);
  rmSync(dir, { recursive: true, force: true });
}
