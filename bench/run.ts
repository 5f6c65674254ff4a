/**
 * `npm run bench`: runs every benchmark script under bench/<area>/ (files ending in `.bench.ts`),
 * one after another so they do not compete for the two cores, or only the areas named:
 * `npm run bench -- events email`.
 */
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const areas = readdirSync(root).filter(
  (d) => statSync(path.join(root, d)).isDirectory() && (only.length === 0 || only.includes(d)),
);
let failed = 0;
for (const area of areas.sort()) {
  for (const file of readdirSync(path.join(root, area))
    .filter((f) => f.endsWith(".bench.ts"))
    .sort()) {
    const rel = path.join("bench", area, file);
    console.log(`\n=== ${rel}`);
    const res = spawnSync(process.execPath, ["--import", "tsx", path.join(root, area, file)], {
      stdio: "inherit",
      env: {
        ...process.env,
        RATE_LIMIT_EVENTS: "0",
        RATE_LIMIT_READS: "0",
        RATE_LIMIT_WRITES: "0",
        RATE_LIMIT_KEY_EVENTS: "0",
        RATE_LIMIT_ADDRESS_EVENTS: "0",
        RATE_LIMIT_ADDRESS_LEADS: "0",
      },
    });
    if (res.status !== 0) {
      failed++;
      console.error(`${rel} exited with ${res.status}`);
    }
  }
}
process.exit(failed ? 1 : 0);
