/**
 * Lift as src/main.ts builds it (SQLite under DATA_DIR), printing the public and API keys. With
 * BENCH_NO_PROCESSORS=1 the event processors of other modules (identity, analytics, experiments)
 * are unregistered, to show what the events module itself costs. With BENCH_MIX=growth the new
 * project also gets a `purchase` conversion goal and a running A/B experiment deciding on it,
 * whose id is printed (`experiment: …`). POST /bench/shell answers like the events route with no
 * work behind it: Lift's HTTP shell (hooks, headers, body parser, logging, metrics) alone.
 */
import { renameSync, writeFileSync } from "node:fs";
import inspector from "node:inspector";
import path from "node:path";
import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { createExperiment, updateExperiment } from "../../src/modules/experiments/service.js";
import { createConversionGoal } from "../../src/modules/goals/service.js";
import { bootstrapIfEmpty } from "../../src/modules/workspace/bootstrap.js";
import { createProjectKey } from "../../src/modules/workspace/service.js";

const config = loadConfig();
const app = await buildApp(config);
// The shell (see above), with the events route's own config: hot-path headers, public CORS, text/plain.
app.post("/bench/shell", { config: { allowTextPlain: true, publicCors: true, hotPath: true } }, async () => ({
  received: 1,
}));
if (process.env.BENCH_NO_PROCESSORS === "1")
  (app.eventBus as unknown as { processors: unknown[] }).processors = [];
const created = await bootstrapIfEmpty(app.db, {
  adminEmail: "bench@example.com",
  adminPassword: "bench bench bench",
});
if (created)
  process.stdout.write(`public key: ${created.project.publicKey}\napi key: ${created.key.rawKey}\n`);
else {
  // A data dir that already holds a project (a kept store, BENCH_FROM): a new key for its first project.
  const first = await app.db
    .selectFrom("projects")
    .select(["id", "workspace_id", "public_key"])
    .executeTakeFirstOrThrow();
  const key = await createProjectKey(app.db, first.workspace_id, first.id, "bench");
  process.stdout.write(`public key: ${first.public_key}\napi key: ${key.rawKey}\n`);
}
if (created && process.env.BENCH_MIX === "growth") {
  const project = { id: created.project.id, workspaceId: created.workspace.id };
  const goal = await createConversionGoal(app.db, project, { name: "Purchase", eventType: "purchase" });
  const exp = await createExperiment(app.db, project, {
    name: "Bench",
    targetUrl: "https://shop.example.com/",
    variants: [{ name: "control" }, { name: "treatment" }],
    conversionGoalIds: [goal.id],
  });
  await updateExperiment(app.db, project, { id: exp.id, status: "running" });
  process.stdout.write(`experiment: ${exp.id}\n`);
}
await app.listen({ port: config.port, host: config.host });
// BENCH_PROFILE_DIR: each SIGUSR2 starts a CPU profile of this thread, the next one writes it there
// as profile-<n>.cpuprofile (a window of a long load, e.g. the first and the last tenth of it).
if (process.env.BENCH_PROFILE_DIR) {
  const dir = process.env.BENCH_PROFILE_DIR;
  const session = new inspector.Session();
  session.connect();
  const post = (method: string) =>
    new Promise<unknown>((resolve, reject) =>
      session.post(method, (err, result) => (err ? reject(err) : resolve(result))),
    );
  await post("Profiler.enable");
  let running = false;
  let n = 0;
  process.on("SIGUSR2", () => {
    running = !running;
    if (running) void post("Profiler.start");
    else
      void post("Profiler.stop").then((r) => {
        const file = path.join(dir, `profile-${++n}.cpuprofile`);
        writeFileSync(file, JSON.stringify((r as { profile: unknown }).profile));
        process.stdout.write(`profile written: ${file}\n`);
      });
  });
}
// BENCH_MEMORY_FILE: this process's memory, written every second (JSON, MB): the whole process
// (RSS: DuckDB's and SQLite's memory too), V8's heap in use, and memory outside it (typed arrays).
if (process.env.BENCH_MEMORY_FILE) {
  const file = process.env.BENCH_MEMORY_FILE;
  const mb = (n: number) => Math.round(n / 1048576);
  setInterval(() => {
    const m = process.memoryUsage();
    writeFileSync(
      `${file}.tmp`,
      JSON.stringify({ rss: mb(m.rss), heap: mb(m.heapUsed), external: mb(m.external) }),
    );
    renameSync(`${file}.tmp`, file);
  }, 1000).unref();
}
process.on("SIGTERM", () => {
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
