/**
 * A conversion goal's recount from stored events (analytics/ingest/goal-recompute.ts) on SQLite: N stored
 * events (seed-events.ts: 3% signups, 1% purchases, 120 days), then a "Signup" goal created after
 * them. Measures the whole recount and its page transactions one by one (each holds SQLite's one
 * connection, and better-sqlite3 runs on the event loop: the longest page is the longest a flush
 * or a request can wait), and checks the count against the seeded truth. Then the goal's deletion.
 * Run: npx tsx bench/analytics/goal-recompute.bench.ts   (BENCH_EVENTS=1000000)
 */
import { rmSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { buildApp } from "../../src/app.js";
import { recomputeConversionsStep } from "../../src/modules/analytics/ingest/goal-recompute.js";
import {
  CONVERSION_RECOMPUTE_JOB,
  createConversionGoal,
  deleteConversionGoal,
} from "../../src/modules/goals/service.js";
import { provisionWorkspace } from "../../src/modules/workspace/bootstrap.js";
import { benchConfig } from "../lib/config.js";
import { seedStoredEvents } from "./seed-events.js";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 1_000_000);
const config = benchConfig("recount");
const app = await buildApp(config, { logger: false });
await app.ready();

/** Runs the goal's queued recount page by page, timing each page's transaction. */
async function recount(goalId: string) {
  const job = await app.db
    .selectFrom("jobs")
    .select(["id", "payload"])
    .where("type", "=", CONVERSION_RECOMPUTE_JOB.type)
    .where("status", "=", "queued")
    .where("payload", "like", `%${goalId}%`)
    .orderBy("created_at", "desc")
    .executeTakeFirstOrThrow();
  await app.db.deleteFrom("jobs").where("id", "=", job.id).execute();
  const payload = JSON.parse(job.payload);
  const pages: number[] = [];
  const start = performance.now();
  for (;;) {
    const t = performance.now();
    const r = await recomputeConversionsStep(app.deps, payload, { maxPages: 1 });
    pages.push(performance.now() - t);
    if (r !== "continue") break;
  }
  const total = performance.now() - start;
  pages.sort((a, b) => a - b);
  const at = (q: number) => pages[Math.min(pages.length - 1, Math.floor(q * pages.length))]!;
  return {
    totalS: +(total / 1000).toFixed(2),
    pages: pages.length,
    pageP50Ms: +at(0.5).toFixed(1),
    pageP99Ms: +at(0.99).toFixed(1),
    pageMaxMs: +pages[pages.length - 1]!.toFixed(1),
  };
}

try {
  const p = await provisionWorkspace(app.db, { name: "bench", email: "bench@example.com" });
  const project = { id: p.project.id, workspaceId: p.workspace.id };
  const seeded = performance.now();
  seedStoredEvents(app.dbHandle.sqlite!, project.id, EVENTS, Date.now());
  console.log(`seeded ${EVENTS} events in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);
  const truth = Number(
    (
      app.dbHandle
        .sqlite!.prepare("select count(*) as n from events where project_id = ? and type = 'signup'")
        .get(project.id) as { n: number }
    ).n,
  );

  const goal = await createConversionGoal(app.db, project, { name: "Signup", eventType: "signup" });
  const created = await recount(goal.id);
  const counted = await app.db
    .selectFrom("analytics_conversions")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("project_id", "=", project.id)
    .executeTakeFirstOrThrow();
  const rollup = await app.db
    .selectFrom("analytics_daily")
    .select((eb) => eb.fn.sum<number>("conversions").as("n"))
    .where("project_id", "=", project.id)
    .where("channel", "<>", "$all")
    .executeTakeFirstOrThrow();
  console.log(
    JSON.stringify({
      events: EVENTS,
      signups: truth,
      conversions: Number(counted.n),
      rollup: Number(rollup.n),
      created,
    }),
  );

  await deleteConversionGoal(app.db, project, goal.id);
  const deleted = await recount(goal.id);
  const left = await app.db
    .selectFrom("analytics_conversions")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("project_id", "=", project.id)
    .executeTakeFirstOrThrow();
  console.log(JSON.stringify({ left: Number(left.n), deleted }));
} finally {
  await app.close();
  rmSync(config.dataDir, { recursive: true, force: true });
}
