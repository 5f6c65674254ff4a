import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import type { ReaderConfig } from "../db/reader.js";
import type { Answer, ToWorker } from "./protocol.js";

/** Where the worker's code is: the entry, and the module list it loads (same layout in src/ and dist/). */
export interface ReadPoolCode {
  entry: URL;
  tasks: URL;
}

export interface ReaderEvents {
  answer: (m: Answer) => void;
  error: (err: unknown) => void;
  exit: () => void;
}

/** Starts one reader thread; its memory bounded, its output the process's. */
export function startReader(
  code: ReadPoolCode,
  db: ReaderConfig,
  opts: { memoryMb: number; pgConnections: number },
  on: ReaderEvents,
): { post: (m: ToWorker) => void; stop: () => Promise<void> } {
  const worker = new Worker(BOOTSTRAP, {
    eval: true,
    workerData: {
      entry: code.entry.href,
      tasks: code.tasks.href,
      loader: code.entry.pathname.endsWith(".ts") ? tsxLoader() : null,
      db,
      pgConnections: opts.pgConnections,
    },
    resourceLimits: { maxOldGenerationSizeMb: opts.memoryMb },
  });
  worker.on("message", on.answer);
  worker.on("error", on.error);
  worker.on("exit", on.exit);
  return {
    post: (m) => worker.postMessage(m),
    stop: async () => {
      await worker.terminate().catch(() => {});
    },
  };
}

/** TypeScript sources (tests, `npm run dev`): the thread registers tsx's loader before importing them. */
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
