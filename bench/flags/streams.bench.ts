/**
 * GET /sub/:clientKey with 1,000 open streams (GrowthBook SDKs listening): the server's memory
 * before and with them, and how long one flag change takes to reach all of them; beside a bare
 * Node server holding as many event streams and writing the same event (what Node itself costs).
 * Lift: src/main.ts on SQLite, 200 flags (a 63 KB payload that every stream gets on connect and
 * on each change). Run: npx tsx bench/flags/streams.bench.ts   (BENCH_STREAMS=1000)
 */
import http from "node:http";
import { startNode } from "../lib/servers.js";
import { keysOf, seedFlags } from "./seed.js";

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

interface Client {
  events: number;
  req: http.ClientRequest;
}

/** Opens `n` event streams on `url`; each counts the `features` events it has received. */
async function openStreams(url: string, n: number): Promise<Client[]> {
  const clients: Client[] = [];
  for (let i = 0; i < n; i++) {
    const c: Client = { events: 0, req: null as unknown as http.ClientRequest };
    await new Promise<void>((resolve, reject) => {
      c.req = http.get(url, { agent }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`stream ${i}: ${res.statusCode}`));
        res.setEncoding("utf8");
        let tail = "";
        res.on("data", (chunk: string) => {
          const text = tail + chunk;
          c.events += text.split("event: features\n").length - 1;
          tail = text.slice(-20);
        });
        resolve();
      });
      c.req.on("error", reject);
    });
    clients.push(c);
  }
  return clients;
}

async function until(fn: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function metrics(base: string) {
  const text = await (await fetch(`${base}/metrics`)).text();
  const read = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, "m").exec(text)?.[1]);
  return {
    rss: read("process_resident_memory_bytes"),
    heap: read("nodejs_heap_size_used_bytes"),
    streams: read("lift_flag_streams"),
  };
}

const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;
const kb = (b: number) => `${(b / 1024).toFixed(1)} KB`;

async function measure(name: string, base: string, streamUrl: string, change: () => Promise<void>) {
  await new Promise((r) => setTimeout(r, 1000)); // let start-up garbage settle before the baseline
  const before = await metrics(base);
  const t0 = performance.now();
  const clients = await openStreams(streamUrl, STREAMS);
  await until(() => clients.every((c) => c.events >= 1));
  const opened = performance.now() - t0;
  await until(async () => (await metrics(base)).streams === STREAMS);
  const held = await metrics(base);
  const t1 = performance.now();
  await change();
  await until(() => clients.every((c) => c.events >= 2));
  const fanOut = performance.now() - t1;
  const after = await metrics(base);
  console.log(`\n${name}: ${STREAMS} streams`);
  console.log(`  open + first payload on all: ${opened.toFixed(0)} ms`);
  console.log(
    `  RSS  ${mb(before.rss)} → ${mb(held.rss)} with the streams (+${kb((held.rss - before.rss) / STREAMS)} per stream), ${mb(after.rss)} after a push`,
  );
  console.log(
    `  heap ${mb(before.heap)} → ${mb(held.heap)} (+${kb((held.heap - before.heap) / STREAMS)} per stream), ${mb(after.heap)} after a push`,
  );
  console.log(`  one change → all ${STREAMS} streams have it: ${fanOut.toFixed(0)} ms`);
  for (const c of clients) c.req.destroy();
}

const lift = await startNode("src/main.ts", {
  ADMIN_EMAIL: "bench@example.com",
  ADMIN_PASSWORD: "bench bench bench",
});
let bare: Awaited<ReturnType<typeof startNode>> | null = null;
try {
  const { apiKey, publicKey } = keysOf(lift.output());
  await seedFlags(lift.base, apiKey);
  const body = await (await fetch(`${lift.base}/api/features/${publicKey}`)).text();
  bare = await startNode("bench/flags/bare-sse-server.ts", { BARE_EVENT: body });
  console.log(`payload ${kb(body.length)}; node ${process.version}`);
  await measure("bare Node event streams", bare.base, `${bare.base}/sub/x`, async () => {
    await fetch(`${bare!.base}/push`, { method: "POST" });
  });
  let n = 0;
  await measure("Lift GET /sub/:clientKey", lift.base, `${lift.base}/sub/${publicKey}`, async () => {
    const res = await fetch(`${lift.base}/api/flags/team-0.feature-0`, {
      method: "PATCH",
      headers: { "content-type": "application/json", "x-api-key": apiKey },
      body: JSON.stringify({ description: `changed ${n++}` }),
    });
    if (res.status !== 200) throw new Error(`PATCH ${res.status}`);
  });
} finally {
  await bare?.stop();
  await lift.stop();
}
