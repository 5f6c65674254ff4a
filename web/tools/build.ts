import { spawnSync } from "node:child_process";
import { existsSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "vite";
import { generateApiTypes } from "./openapi-types.js";
import { DIST_DIR, REPO_DIR, WEB_DIR } from "./paths.js";
import { precompress } from "./precompress.js";

const log = (line: string) => process.stdout.write(`[web] ${line}\n`);

/** Type-checks web/ (TypeScript 7, the project's compiler) against the freshly generated API types. */
export function typecheckWeb(): void {
  const tsc = path.join(REPO_DIR, "node_modules", ".bin", "tsc");
  const res = spawnSync(tsc, ["-p", path.join(WEB_DIR, "tsconfig.json")], { stdio: "inherit" });
  if (res.status !== 0) throw new Error("the dashboard does not typecheck against the API (see above)");
}

/**
 * The dashboard build: API types from the app's OpenAPI document, typecheck, Vite build,
 * precompressed assets. Built into a sibling folder and swapped in, so a running server or a
 * concurrent build never sees a half-written web/dist.
 */
export async function buildWeb(): Promise<void> {
  const started = Date.now();
  log("generating API types from the OpenAPI document");
  await generateApiTypes();
  log("typechecking");
  typecheckWeb();
  const staging = path.join(WEB_DIR, `.dist-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  log("bundling");
  await build({
    configFile: path.join(WEB_DIR, "vite.config.ts"),
    mode: "production",
    logLevel: "warn",
    build: { outDir: staging, emptyOutDir: true },
  });
  const files = precompress(path.join(staging, "assets"));
  writeFileSync(
    path.join(staging, "build.json"),
    JSON.stringify(
      { builtAt: new Date().toISOString(), assets: files.map((f) => path.basename(f.file)) },
      null,
      2,
    ),
  );
  const old = path.join(WEB_DIR, `.dist-old-${process.pid}`);
  if (existsSync(DIST_DIR)) renameSync(DIST_DIR, old);
  renameSync(staging, DIST_DIR);
  rmSync(old, { recursive: true, force: true });
  log(`built web/dist in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  // React's production build is chosen by NODE_ENV (Vite keeps a value already set).
  process.env.NODE_ENV = "production";
  const only = process.argv[2];
  if (only === "--types") await generateApiTypes();
  else if (only === "--typecheck") {
    await generateApiTypes();
    typecheckWeb();
  } else await buildWeb();
}
