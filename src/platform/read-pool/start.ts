import type { MessagePort } from "node:worker_threads";
import { startModuleThread } from "../threads.js";
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

/** Starts one reader thread; its memory bounded, its output the process's; `engine`: its port to the analytics engine. */
export function startReader(
  code: ReadPoolCode,
  db: ReaderConfig,
  opts: { memoryMb: number; pgConnections: number },
  on: ReaderEvents,
  engine?: MessagePort,
): { post: (m: ToWorker) => void; stop: () => Promise<void> } {
  const worker = startModuleThread(
    code.entry,
    { tasks: code.tasks.href, db, pgConnections: opts.pgConnections, engine },
    { resourceLimits: { maxOldGenerationSizeMb: opts.memoryMb }, transferList: engine ? [engine] : [] },
  );
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
