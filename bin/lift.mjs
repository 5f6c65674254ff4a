#!/usr/bin/env node
// The `lift` command (package.json "bin"). It runs the compiled CLI (dist/cli.js) when the server
// build is current. Otherwise it runs the TypeScript sources through tsx, registered in-process (no
// child process to forward signals to): an operator command should not wait for a build, and a
// checkout where only `npm install` ran has no dist/ yet.
import { existsSync, readdirSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";

const repo = fileURLToPath(new URL("../", import.meta.url));

/** Newest modification under `p` (the rule of tools/build-server.ts: test files do not count). */
function newest(p) {
  if (!existsSync(p)) return 0;
  const stat = statSync(p);
  if (!stat.isDirectory()) return /\.test\.ts$/.test(p) || p.includes("/fixtures/") ? 0 : stat.mtimeMs;
  let n = stat.mtimeMs;
  for (const name of readdirSync(p)) n = Math.max(n, newest(`${p}/${name}`));
  return n;
}

const stamp = `${repo}dist/build.json`;
const current =
  existsSync(stamp) &&
  statSync(stamp).mtimeMs >=
    Math.max(newest(`${repo}src`), newest(`${repo}tsconfig.json`), newest(`${repo}tsconfig.build.json`));

if (current) {
  process.setSourceMapsEnabled(true); // stack traces (LIFT_DEBUG) name the .ts sources
  await import("../dist/cli.js");
}
else {
  const { register } = await import("tsx/esm/api");
  register();
  await import("../src/cli.ts");
}
