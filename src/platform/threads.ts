import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { type TransferListItem, Worker, type WorkerOptions } from "node:worker_threads";

/**
 * A worker thread running one module of this build: a `.js` file from dist/, or a `.ts` source
 * (tests, `npm run dev`), for which the thread registers tsx's loader before importing it. The
 * module reads its `workerData`; `entry` and `loader` are taken.
 */
export function startModuleThread(
  entry: URL,
  data: Record<string, unknown>,
  opts: Pick<WorkerOptions, "resourceLimits"> & { transferList?: TransferListItem[] } = {},
): Worker {
  return new Worker(BOOTSTRAP, {
    eval: true,
    workerData: { ...data, entry: entry.href, loader: entry.pathname.endsWith(".ts") ? tsxLoader() : null },
    resourceLimits: opts.resourceLimits,
    transferList: opts.transferList,
  });
}

function tsxLoader(): string {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve("tsx/package.json");
  const api = (require(manifest) as { exports: Record<string, { import: { default: string } }> }).exports[
    "./esm/api"
  ]!.import.default;
  return pathToFileURL(path.join(path.dirname(manifest), api)).href;
}

// Plain JavaScript, so the thread starts the same from src/ and dist/.
const BOOTSTRAP = `
const { workerData } = require("node:worker_threads");
(async () => {
  if (workerData.loader) (await import(workerData.loader)).register();
  await import(workerData.entry);
})().catch((err) => { setImmediate(() => { throw err; }); });
`;
