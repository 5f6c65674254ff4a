import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Config, loadConfig } from "../../src/config.js";

/** Config for an in-process benchmark app: a fresh SQLite file, no workers, no logs, no rate limits. */
export function benchConfig(name: string): Config {
  const dataDir = mkdtempSync(path.join(tmpdir(), `lift-bench-${name}-`));
  return {
    ...loadConfig(
      { ...process.env, DATABASE_URL: "" },
      { dataDir, secretKey: randomBytes(32).toString("base64url") },
    ),
    sqlitePath: path.join(dataDir, "bench.db"),
    startWorkers: false,
    logLevel: "silent",
    rateLimits: { events: 0, reads: 0, writes: 0 },
  };
}
