/**
 * The events writer's CPU per event, in-process (no HTTP, no load generator): batch-format server
 * events, 100 a request, 8 requests in flight, every module's processors; CPU µs per event
 * (process.cpuUsage) in 5 runs of 1000 requests after a warm-up. For before/after figures of a
 * change to the writer or the pipeline: copy this file into a checkout of each and alternate
 *   npx tsx bench/events/writer-cpu.ts
 * (not a `.bench.ts`: it has no baseline of its own, the other checkout is the baseline).
 */
import { buildApp } from "../../src/app.js";
import { bootstrapIfEmpty } from "../../src/modules/workspace/bootstrap.js";
import { writeEvents } from "../../src/modules/event-store/service.js";
import { readBatch } from "../../src/modules/events/validate.js";
import { benchConfig } from "../lib/config.js";
const app = await buildApp(benchConfig("writer-cpu"), { logger: false });
const created = (await bootstrapIfEmpty(app.db, {
  adminEmail: "b@example.com",
  adminPassword: "bench bench bench",
}))!;
const project = { id: created.project.id, workspaceId: created.workspace.id };
const ev = (i: number) => ({
  type: i % 10 === 0 ? "Added to Cart" : "Product Viewed",
  visitorId: `v${i % 20000}`,
  url: `https://shop.example.com/p/${i % 100}`,
  data: { plan: "pro", i },
  timestamp: new Date(Date.UTC(2026, 10, 1) + i * 1000).toISOString(),
});
let i = 0;
const request = () => {
  const { valid } = readBatch(
    Array.from({ length: 100 }, () => ev(i++)),
    { leadId: null, visitorId: null },
    Date.now(),
  );
  return writeEvents(app.deps, project, valid, "server");
};
const run = async (requests: number) => {
  let left = requests;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (left-- > 0) await request();
    }),
  );
};
await run(500);
const out: number[] = [];
for (let r = 0; r < 5; r++) {
  const c = process.cpuUsage();
  await run(1000);
  const u = process.cpuUsage(c);
  out.push((u.user + u.system) / 100_000);
}
console.log(
  `µs per event ${out.map((x) => x.toFixed(2)).join(" / ")} median ${[...out].sort((a, b) => a - b)[2]!.toFixed(2)}`,
);
await app.close();
