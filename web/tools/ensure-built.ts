import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { API_TYPES_FILE, DIST_DIR, REPO_DIR, WEB_DIR } from "./paths.js";

/** What the build reads from web/ (the generated API types are an output, not a source). */
const SOURCES = ["src", "index.html", "vite.config.ts", "tsconfig.json", "public"];

function newestSource(entry: string): number {
  if (!existsSync(entry)) return 0;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return entry === API_TYPES_FILE ? 0 : stat.mtimeMs;
  let newest = stat.mtimeMs; // a deleted file changes its folder's time
  for (const name of readdirSync(entry)) newest = Math.max(newest, newestSource(path.join(entry, name)));
  return newest;
}

/** Why web/dist needs a build, or null when it is newer than every source. */
export function staleReason(): string | null {
  const stamp = path.join(DIST_DIR, "build.json");
  if (!existsSync(stamp)) return "web/dist is missing";
  const built = statSync(stamp).mtimeMs;
  const newest = Math.max(...SOURCES.map((s) => newestSource(path.join(WEB_DIR, s))));
  return newest > built ? "web/ sources changed since the last build" : null;
}

/** Builds the dashboard when web/dist is missing or older than its sources. */
export async function ensureWebBuilt(): Promise<void> {
  const reason = staleReason();
  if (!reason) return;
  process.stdout.write(`[web] ${reason}: building the dashboard (npm run build)\n`);
  // A process of its own: a production build whatever NODE_ENV the caller has (vitest sets
  // "test", which would bundle React's development build), and the app it loads to read the
  // OpenAPI document stays out of the caller.
  const tsx = path.join(REPO_DIR, "node_modules", ".bin", "tsx");
  const res = spawnSync(tsx, [path.join(WEB_DIR, "tools", "build.ts")], {
    stdio: "inherit",
    env: { ...process.env, NODE_ENV: "production" },
  });
  if (res.status !== 0) throw new Error(`the dashboard build failed (exit ${res.status ?? res.signal})`);
}

// `npm start` runs this first. A failed build does not stop the API from starting: `/` then
// explains how to build, and the error is printed here.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  try {
    await ensureWebBuilt();
  } catch (err) {
    process.stderr.write(`[web] the dashboard could not be built: ${(err as Error).message}\n`);
  }
}
