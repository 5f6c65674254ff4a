import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/**
 * WAL checkpoints on a thread of their own. A checkpoint copies pages from the WAL back into the
 * database file and syncs it; with SQLite's auto-checkpoint that I/O runs inside whichever COMMIT
 * crosses the threshold, on the event loop (~10% of the events writer's time under batch load,
 * bench/README.md). Here a worker with its own connection runs PASSIVE checkpoints, which never
 * block writers or readers; the app's connection keeps a far higher auto-checkpoint as a backstop.
 *
 * The thread never takes SQLite's write lock (no RESTART or TRUNCATE there): a transaction of the
 * app that has read and then writes gets SQLITE_BUSY at once, without waiting, when another
 * connection holds that lock. The WAL starts over by itself when a write begins with every frame
 * copied; under back-to-back group commits that moment may never come, so the heavy writer calls
 * `restartIfLarge` between its transactions and the app's connection truncates the WAL there.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma("busy_timeout = 1000");
let stopped = false;
let lastFrames = -1;
const tick = () => {
  if (stopped) return;
  let behind = false;
  try {
    const [r] = db.pragma("wal_checkpoint(PASSIVE)");
    // The WAL starts over (instead of growing) only when a write begins with every frame copied;
    // frames committed during a pass are copied right away, so the next pass is short.
    behind = r.checkpointed < r.log;
    if (r.log !== lastFrames) parentPort.postMessage({ frames: r.log });
    lastFrames = r.log;
  } catch (err) {
    parentPort.postMessage({ error: String((err && err.message) || err) });
  }
  if (behind) setImmediate(tick);
  else setTimeout(tick, workerData.intervalMs);
};
parentPort.on("message", (m) => {
  if (m === "stop") {
    stopped = true;
    db.close();
    parentPort.close();
  }
});
setTimeout(tick, workerData.intervalMs);
`;

export interface Checkpointer {
  /**
   * Truncates the WAL through the app's connection when it holds more than `restartFrames`
   * frames (as the thread last saw it). Call it with no transaction open on that connection;
   * the thread has copied nearly every frame already, so this costs a few milliseconds.
   * `truncate` answers whether the WAL was reset (a checkpoint busy elsewhere leaves it be, and
   * the next call tries again).
   */
  restartIfLarge(truncate: () => Promise<boolean>): Promise<void>;
  stop(): Promise<void>;
}

export function startCheckpointer(
  path: string,
  opts: { intervalMs?: number; restartFrames?: number; onError?: (message: string) => void } = {},
): Checkpointer {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      path,
      driver: createRequire(import.meta.url).resolve("better-sqlite3"),
      intervalMs: opts.intervalMs ?? 100,
    },
  });
  // 16384 frames of 4 KiB: the WAL stays under ~64 MB plus what one flush adds
  const restartFrames = opts.restartFrames ?? 16_384;
  let frames = 0;
  worker.unref();
  let exited = false;
  worker.on("message", (m: { error?: string; frames?: number }) => {
    if (m.error) opts.onError?.(m.error);
    if (m.frames !== undefined) frames = m.frames;
  });
  worker.on("error", (err) => opts.onError?.(err.message));
  worker.on("exit", () => {
    exited = true;
  });
  return {
    async restartIfLarge(truncate) {
      if (frames <= restartFrames) return;
      if (await truncate()) frames = 0;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (exited) return resolve();
        worker.once("exit", () => resolve());
        // Held until it exits: a process whose last work is closing must not end while it waits.
        worker.ref();
        worker.postMessage("stop");
      }),
  };
}
