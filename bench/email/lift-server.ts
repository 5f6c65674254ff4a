/**
 * Lift for the send benchmark: a fresh SQLite database, a scale-tier workspace and KEYS transactional
 * keys (the per-key limit is 12 000/min, so the load spreads over keys as real clients would);
 * prints the keys as one JSON line, then listens on PORT.
 */
import { buildApp } from "../../src/app.js";
import { loadConfig } from "../../src/config.js";
import { mintTxKey } from "../../src/modules/email/keys.js";
import { provisionWorkspace } from "../../src/modules/workspace/bootstrap.js";

const config = { ...loadConfig(), logLevel: "warn", startWorkers: false };
const app = await buildApp(config, { logger: false });
const p = await provisionWorkspace(app.db, {
  name: "Bench",
  email: "bench@example.com",
  password: "bench bench bench",
  tier: "scale",
});
const keys: string[] = [];
for (let i = 0; i < Number(process.env.KEYS ?? 100); i++)
  keys.push((await mintTxKey(app.db, p.workspace.id, `k${i}`)).rawKey);
process.stdout.write(`KEYS ${JSON.stringify(keys)}\n`);
await app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
process.on("SIGTERM", () => app.close().then(() => process.exit(0)));
