/**
 * Where a batched event's CPU goes in each format of segment-batch.bench.ts: Lift's batch format,
 * Segment's as analytics-node sends it, and lean Segment messages. Each format gets a fresh Lift
 * (every module's processors) started with `--cpu-prof`, loaded as the benchmark loads it (8
 * connections, 100 events a request), stopped, and its profile summed per event by category and
 * function (bench/lib/cpu-profile.ts). Reading the formats side by side shows what Segment's path
 * adds.
 * Run: npx tsx bench/events/profile-segment.ts   (BENCH_SECONDS=8, BENCH_TOP=25, BENCH_CATEGORY=…,
 *      BENCH_FORMATS=1,3 to profile only those, counted from 1)
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { summarize } from "../lib/cpu-profile.js";
import { load } from "../lib/servers.js";
import { PER_REQUEST, liftBodies, segmentBodies } from "./segment-bodies.js";
import { startLift } from "./servers.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);

const basic = (key: string) => ({ authorization: `Basic ${Buffer.from(`${key}:`).toString("base64")}` });
const formats: { name: string; path: string; body: (key: string) => () => string; auth: boolean }[] = [
  { name: "Lift batch format (/api/events)", path: "/api/events", body: liftBodies, auth: false },
  { name: "Segment batch (/v1/batch)", path: "/v1/batch", body: () => segmentBodies().body, auth: true },
  {
    name: "Segment batch, lean messages",
    path: "/v1/batch",
    body: () => segmentBodies(true).body,
    auth: true,
  },
];
const only = process.env.BENCH_FORMATS?.split(",");
for (const f of formats.filter((_, i) => !only || only.includes(String(i + 1)))) {
  const dir = mkdtempSync(path.join(tmpdir(), "lift-prof-"));
  process.env.BENCH_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${dir}`;
  const lift = await startLift({ processors: true });
  const body = f.body(lift.publicKey);
  const headers = f.auth ? basic(lift.publicKey) : {};
  const run = (seconds: number) =>
    load({ url: `${lift.base}${f.path}`, connections: CONNECTIONS, seconds, body, headers: () => headers });
  await run(2); // warm-up, in the profile too
  const res = await run(SECONDS);
  await lift.stop();
  if (res.non2xx > 0) throw new Error(`${f.name}: ${res.non2xx} non-2xx responses`);
  const file = readdirSync(dir).find((n) => n.endsWith(".cpuprofile"));
  if (!file) throw new Error(`${f.name}: no profile written`);
  const events = Math.round(res.rps * SECONDS * PER_REQUEST);
  console.log(`\n${f.name}: ${(res.rps * PER_REQUEST).toFixed(0)} events/s under load`);
  summarize(path.join(dir, file), events, SECONDS, "event");
  rmSync(dir, { recursive: true, force: true });
}
