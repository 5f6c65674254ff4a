import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { AppState } from "../app-state.js";
import { type ReaderConfig, openReader } from "../db/reader.js";
import { type ColumnarEngine, engineOverPort } from "../engine.js";
import { toCrossed } from "./crossing.js";
import type { Answer, ToWorker } from "./protocol.js";
import { InlineReads, type ReadTask, type ReadTaskList } from "./task.js";

/**
 * A read worker's thread (started by start.ts): its own read connection, the tasks the module list
 * names, one answer per task, and a streamed task's chunks one per pull. Tasks interleave on the
 * connection as they wait on it.
 */

interface Data {
  tasks: string;
  db: ReaderConfig;
  pgConnections: number;
  /** this thread's port to the analytics engine */
  engine?: MessagePort;
}

const data = workerData as Data;
const port = parentPort!;
const list = (await import(data.tasks)) as { readTaskList: ReadTaskList };
// The worker's own state, as an app's: what the modules' registrations would provide, `prepare` does.
const state = new AppState();
list.readTaskList.prepare?.({ state });
const byName = new Map<string, ReadTask<unknown, unknown>>(
  list.readTaskList.tasks.map((t) => [t.name, t as ReadTask<unknown, unknown>]),
);
const handle = openReader(data.db, data.pgConnections);
/** the pool was given no engine (tests of the pool alone) */
const noEngine: ColumnarEngine = {
  query: () => Promise.reject(new Error("this read pool has no analytics engine")),
};
const reads = new InlineReads(
  handle.db,
  state,
  data.engine
    ? engineOverPort(data.engine, () => port.postMessage({ id: 0, ok: true, value: "engine" }))
    : noEngine,
);
/** streamed tasks, by id: their iterator once started */
const streams = new Map<number, Promise<AsyncIterator<string>>>();

const answer = (m: Answer) => port.postMessage(m);
const failed = (id: number, err: unknown) => answer({ id, ok: false, error: toCrossed(err) });

function start(m: Extract<ToWorker, { kind: "start" }>): void {
  const task = byName.get(m.name);
  const result = task
    ? reads.run(task, m.project, m.input)
    : Promise.reject(new Error(`no read task named ${m.name}`));
  if (!m.stream) {
    result.then(
      (value) => answer({ id: m.id, ok: true, value }),
      (err) => failed(m.id, err),
    );
    return;
  }
  const iterator = result.then((v) => (v as AsyncIterable<string>)[Symbol.asyncIterator]());
  iterator.catch(() => {});
  streams.set(m.id, iterator);
}

async function pull(id: number): Promise<void> {
  const iterator = streams.get(id);
  if (!iterator) return;
  try {
    const next = await (await iterator).next();
    if (next.done) streams.delete(id);
    answer({ id, ok: true, value: next.done ? { done: true } : { chunk: next.value } });
  } catch (err) {
    streams.delete(id);
    failed(id, err);
  }
}

async function cancel(id: number): Promise<void> {
  const iterator = streams.get(id);
  streams.delete(id);
  await (await iterator?.catch(() => undefined))?.return?.();
}

port.on("message", (m: ToWorker) => {
  if (m.kind === "start") start(m);
  else if (m.kind === "pull") void pull(m.id);
  else void cancel(m.id);
});
