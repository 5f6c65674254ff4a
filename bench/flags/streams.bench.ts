/**
 * GET /sub/:clientKey with 1,000 open streams (GrowthBook SDKs listening): the server's memory
 * without and with them, and how long one flag change takes to reach all of them; beside a bare
 * Node HTTP server holding as many event streams and writing the same event (what Node itself
 * costs per connection). Lift is built in this process (SQLite, 200 flags: a 62 KB payload that
 * every stream gets on connect and on each change) and measured after a full garbage collection;
 * the clients run in a child process. Run: npx tsx bench/flags/streams.bench.ts (BENCH_STREAMS=1000)
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { buildApp } from "../../src/app.js";
import { provisionWorkspace } from "../../src/modules/workspace/bootstrap.js";
import { benchConfig } from "../lib/config.js";
import { ROOT } from "../lib/servers.js";
import { seedFlags } from "./seed.js";

// A full collection before each reading needs --expose-gc: run again with it.
if (typeof global.gc !== "function") {
  const r = spawnSync(process.execPath, ["--expose-gc", ...process.execArgv, ...process.argv.slice(1)], {
    stdio: "inherit",
  });
  process.exit(r.status ?? 1);
}

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;
const kb = (b: number) => `${(b / 1024).toFixed(1)} KB`;

function memory() {
  global.gc!();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed, external: m.external };
}

/** Starts the client process; resolves `events(n)` when every stream has had n `features` events. */
function clients(url: string) {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "bench/flags/stream-clients.ts"], {
    cwd: ROOT,
    env: { ...process.env, URL: url, STREAMS: String(STREAMS) },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let seen = 0;
  const waiters: { n: number; resolve: () => void }[] = [];
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (text: string) => {
    for (const m of text.matchAll(/events (\d+)/g)) seen = Math.max(seen, Number(m[1]));
    for (const w of waiters.filter((x) => x.n <= seen)) w.resolve();
  });
  return {
    events: (n: number) =>
      new Promise<void>((resolve) => (seen >= n ? resolve() : waiters.push({ n, resolve }))),
    stop: () =>
      new Promise<void>((r) => {
        child.once("exit", () => r());
        child.kill();
      }),
  };
}

async function measure(name: string, url: string, push: () => Promise<void>) {
  const before = memory();
  const t0 = performance.now();
  const c = clients(url);
  await c.events(1);
  const opened = performance.now() - t0;
  const held = memory();
  const t1 = performance.now();
  await push();
  await c.events(2);
  const fanOut = performance.now() - t1;
  const after = memory();
  await c.stop();
  const per = (a: number, b: number) => kb((b - a) / STREAMS);
  console.log(`\n${name}: ${STREAMS} streams`);
  console.log(`  open them and send each the payload: ${opened.toFixed(0)} ms`);
  console.log(
    `  RSS  ${mb(before.rss)} → ${mb(held.rss)} (+${per(before.rss, held.rss)} per stream); ${mb(after.rss)} after a push`,
  );
  console.log(
    `  heap ${mb(before.heap)} → ${mb(held.heap)} (+${per(before.heap, held.heap)} per stream); ${mb(after.heap)} after a push`,
  );
  console.log(`  external ${mb(before.external)} → ${mb(held.external)}; ${mb(after.external)} after a push`);
  console.log(`  one change → every stream has it: ${fanOut.toFixed(0)} ms`);
}

// ---- Lift ----
const config = benchConfig("streams");
// Every client here has one address: the per-address cap would refuse all but its first 100.
const app = await buildApp({
  ...config,
  logLevel: "warn",
  flagStreams: { ...config.flagStreams, perAddress: 0 },
});
await app.listen({ host: "127.0.0.1", port: 0 });
const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
const p = await provisionWorkspace(app.db, {
  name: "Bench",
  email: "bench@example.com",
  password: "bench bench bench",
});
await seedFlags(base, p.key.rawKey);
const payload = await (await fetch(`${base}/api/features/${p.project.publicKey}`)).text();
console.log(`payload ${kb(payload.length)}; node ${process.version}`);
let n = 0;
await measure("Lift GET /sub/:clientKey", `${base}/sub/${p.project.publicKey}`, async () => {
  const res = await fetch(`${base}/api/flags/team-0.feature-0`, {
    method: "PATCH",
    headers: { "content-type": "application/json", "x-api-key": p.key.rawKey },
    body: JSON.stringify({ description: `changed ${n++}` }),
  });
  if (res.status !== 200) throw new Error(`PATCH ${res.status}`);
});
await app.close();

// ---- bare Node ----
const event = Buffer.from(`event: features\ndata: ${payload}\n\n`);
const streams = new Set<ServerResponse>();
const bare = createServer((_req, res) => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.write(event);
  streams.add(res);
  res.once("close", () => streams.delete(res));
});
await new Promise<void>((r) => bare.listen(0, "127.0.0.1", r));
await measure(
  "bare Node event streams",
  `http://127.0.0.1:${(bare.address() as AddressInfo).port}/sub/x`,
  async () => {
    for (const s of streams) s.write(event);
  },
);
bare.closeAllConnections();
bare.close();
