/**
 * Lift as src/main.ts builds it (SQLite under DATA_DIR), printing the public key. With
 * BENCH_NO_PROCESSORS=1 the event processors of other modules (identity, analytics, experiments)
 * are unregistered, to show what the events module itself costs.
 */
import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { bootstrapIfEmpty } from "../../src/modules/workspace/bootstrap.js";

const config = loadConfig();
const app = await buildApp(config);
if (process.env.BENCH_NO_PROCESSORS === "1")
  (app.eventBus as unknown as { processors: unknown[] }).processors = [];
const created = await bootstrapIfEmpty(app.db, {
  adminEmail: "bench@example.com",
  adminPassword: "bench bench bench",
});
process.stdout.write(`public key: ${created?.project.publicKey}\n`);
await app.listen({ port: config.port, host: config.host });
process.on("SIGTERM", () => {
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
});
