/**
 * Single-event ingest throughput: POST /api/events (snippet format, one event per request,
 * group-committed) vs a bare Fastify route that parses the JSON and answers 200, 50 connections.
 * Lift runs as built (every module's event processors) and with processors unregistered (the
 * events module alone); a bare route that stores the row durably (bare-store-server.ts) gives the
 * floor any durable ingest pays; Lift's HTTP shell (a route with all of Lift's hooks and no work,
 * lift-server.ts) separates the framework's share from the product's. All servers are up; one is loaded at a time, in rotating order per
 * round; the figure is the median of the per-round ratios (the machine is shared and noisy).
 * Run: npx tsx bench/events/single-ingest.bench.ts   (BENCH_ROUNDS=5, BENCH_SECONDS=4)
 */
import { compareWithRecorded } from "../lib/recorded.js";
import { cpuSeconds, median } from "../lib/servers.js";
import { type LoadResult, loadEvents as load, singleEventBody, startLift, startNode } from "./servers.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const CONNECTIONS = 50;

const bare = await startNode("bench/events/bare-server.ts");
// The floor of storing the event durably before answering (see bare-store-server.ts).
const floor = await startNode("bench/events/bare-store-server.ts");
// As built includes the default log level: what logging costs per request is in its figure.
const full = await startLift({ processors: true, env: { LOG_LEVEL: "info" } });
const alone = await startLift({ processors: false });
const targets = [
  { name: "bare Fastify", server: bare, path: "/api/events", key: "k" },
  { name: "bare Fastify + SQLite row", server: floor, path: "/api/events", key: "k" },
  { name: "Lift's HTTP shell, no work", server: full, path: "/bench/shell", key: full.publicKey },
  { name: "Lift, all event processors", server: full, path: "/api/events", key: full.publicKey },
  { name: "Lift, events module alone", server: alone, path: "/api/events", key: alone.publicKey },
].map((t) => ({ ...t, url: `${t.server.base}${t.path}` }));
try {
  for (const t of targets) await load(t.url, CONNECTIONS, 2, singleEventBody(t.key)); // warm-up
  const results: LoadResult[][] = targets.map(() => []);
  // The server's own CPU µs per request: other processes' load on the shared machine does not enter it.
  const cpuPerRequest: number[][] = targets.map(() => []);
  for (let r = 0; r < ROUNDS; r++) {
    for (let k = 0; k < targets.length; k++) {
      const i = (r + k) % targets.length;
      const pid = targets[i]!.server.child.pid!;
      const cpu = cpuSeconds(pid);
      const res = await load(targets[i]!.url, CONNECTIONS, SECONDS, singleEventBody(targets[i]!.key));
      if (res.non2xx > 0) throw new Error(`${targets[i]!.name}: ${res.non2xx} non-2xx responses`);
      results[i]!.push(res);
      cpuPerRequest[i]!.push(((cpuSeconds(pid) - cpu) * 1e6) / (res.rps * SECONDS));
    }
  }
  const base = results[0]!;
  const medians = new Map<string, number>();
  for (let i = 0; i < targets.length; i++) {
    const rps = results[i]!.map((x) => x.rps.toFixed(0)).join(" / ");
    const ratios = results[i]!.map((x, r) => x.rps / base[r]!.rps);
    medians.set(targets[i]!.name, median(ratios));
    const p50 = median(results[i]!.map((x) => x.p50));
    const p99 = median(results[i]!.map((x) => x.p99));
    console.log(
      `${targets[i]!.name.padEnd(28)} req/s ${rps}  p50 ${p50} ms  p99 ${p99} ms  median ratio ${median(ratios).toFixed(2)}  CPU ${median(cpuPerRequest[i]!).toFixed(1)} µs/request`,
    );
  }
  console.log(`${ROUNDS} rounds x ${SECONDS} s, ${CONNECTIONS} connections; target: ratio >= 0.7`);
  compareWithRecorded(
    "single event, Lift as built ÷ bare Fastify",
    medians.get("Lift, all event processors")!,
  );
  compareWithRecorded(
    "single event, events module alone ÷ bare Fastify",
    medians.get("Lift, events module alone")!,
  );
} finally {
  await Promise.all([bare.stop(), floor.stop(), full.stop(), alone.stop()]);
}
