import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * The server's production build: `tsc -p tsconfig.build.json` compiles src/ to JavaScript in
 * dist/ (same layout, so dist/main.js is src/main.ts), and the files under src/ that are not
 * TypeScript are copied beside it.
 *
 * Why copy rather than resolve from src/: code reads its data relative to its own file
 * (`createRequire(import.meta.url)("./channels.json")`), so a copy at the same place in dist/
 * keeps every such read working in both layouts with no change to the code and no "where is
 * the repo" logic; a new data file is picked up by the same rule. Paths that leave src/ (the
 * dashboard's `../../../web/dist/`) resolve the same from dist/ because dist/ sits at the same
 * depth in the repo as src/.
 */
export const REPO_DIR = fileURLToPath(new URL("../", import.meta.url));
export const SRC_DIR = path.join(REPO_DIR, "src");
export const SERVER_DIST = path.join(REPO_DIR, "dist");
const STAMP = "build.json";
/** Besides src/, what decides the output. */
const CONFIGS = ["tsconfig.json", "tsconfig.build.json"].map((f) => path.join(REPO_DIR, f));

const log = (line: string) => process.stdout.write(`[server] ${line}\n`);

/**
 * Tests, test helpers (`*.testing.ts`) and their data (`fixtures/`): neither compiled
 * (tsconfig.build.json excludes) nor copied.
 */
function testOnly(file: string): boolean {
  return /\.test(ing)?\.ts$/.test(file) || file.split(path.sep).includes("fixtures");
}

function newestSource(entry: string): number {
  if (!existsSync(entry)) return 0;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return testOnly(entry) ? 0 : stat.mtimeMs;
  let newest = stat.mtimeMs; // a deleted file changes its folder's time
  for (const name of readdirSync(entry)) newest = Math.max(newest, newestSource(path.join(entry, name)));
  return newest;
}

/** Why `distDir` needs a build, or null when it is newer than every source. */
export function serverStaleReason(distDir = SERVER_DIST): string | null {
  const stamp = path.join(distDir, STAMP);
  if (!existsSync(stamp)) return `${path.relative(REPO_DIR, distDir)}/ is missing`;
  const built = statSync(stamp).mtimeMs;
  const newest = Math.max(newestSource(SRC_DIR), ...CONFIGS.map(newestSource));
  return newest > built ? "src/ changed since the last build" : null;
}

/** Copies every non-TypeScript file under src/ (JSON data, …) to the same place under `out`. */
function copyAssets(dir: string, out: string): string[] {
  const copied: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const from = path.join(dir, entry.name);
    if (testOnly(from)) continue;
    if (entry.isDirectory()) copied.push(...copyAssets(from, path.join(out, entry.name)));
    else if (!/\.tsx?$/.test(entry.name)) {
      mkdirSync(out, { recursive: true });
      copyFileSync(from, path.join(out, entry.name));
      copied.push(path.relative(SRC_DIR, from));
    }
  }
  return copied;
}

/**
 * Compiles the server into `outDir` (dist/ by default; another folder directly in the repo works
 * the same, which the build test uses). Built into a sibling folder and swapped in, so a running
 * server or a concurrent build never sees a half-written one. Fails on a type error.
 */
export function buildServer(outDir = SERVER_DIST): void {
  const started = new Date();
  if (path.dirname(path.resolve(outDir)) !== path.resolve(REPO_DIR))
    throw new Error(
      `${outDir}: the build must be a folder directly in the repo (paths out of src/ are relative)`,
    );
  const staging = path.join(REPO_DIR, `.dist-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  log("compiling src/ (tsc -p tsconfig.build.json)");
  const tsc = path.join(REPO_DIR, "node_modules", ".bin", "tsc");
  const res = spawnSync(tsc, ["-p", path.join(REPO_DIR, "tsconfig.build.json"), "--outDir", staging], {
    stdio: "inherit",
  });
  if (res.status !== 0) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`tsc failed (exit ${res.status ?? res.signal}; see above)`);
  }
  const assets = copyAssets(SRC_DIR, staging);
  const stamp = path.join(staging, STAMP);
  writeFileSync(stamp, `${JSON.stringify({ builtAt: started.toISOString(), assets }, null, 2)}\n`);
  // The stamp carries the time the build started: a source saved while tsc ran is newer, so the
  // next start builds again.
  utimesSync(stamp, started, started);
  const old = path.join(REPO_DIR, `.dist-old-${process.pid}`);
  if (existsSync(outDir)) renameSync(outDir, old);
  renameSync(staging, outDir);
  rmSync(old, { recursive: true, force: true });
  log(
    `built ${path.relative(REPO_DIR, outDir)}/ in ${((Date.now() - started.getTime()) / 1000).toFixed(1)} s`,
  );
}

/** Builds the server when dist/ is missing or older than its sources. */
export function ensureServerBuilt(distDir = SERVER_DIST): void {
  const reason = serverStaleReason(distDir);
  if (!reason) return;
  log(`${reason}: building the server`);
  buildServer(distDir);
}

// `npm run build` (and `npm run build:server`): always builds.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  try {
    buildServer();
  } catch (err) {
    process.stderr.write(`[server] the build failed: ${(err as Error).message}\n`);
    process.exitCode = 1;
  }
}
