import { Readable } from "node:stream";
import type { ProjectRef } from "../auth/principal.js";
import type { AppState, StateHolder } from "../app-state.js";
import type { Db } from "../db/index.js";
import type { ColumnarEngine } from "../engine.js";

/**
 * A read whose cost grows with stored data (a report, a cohort, a filtered lead scan): defined once
 * with a name, run in the read pool's workers (pool.ts) on their own read connections, never on
 * the request thread. Its input and answer cross a thread, so both are plain data (structured
 * clone): no functions, no class instances but Map, Set and Date.
 */
export interface ReadTask<I, R> {
  readonly name: string;
  readonly run: (ctx: ReadContext, project: ProjectRef, input: I) => Promise<R>;
}

/**
 * What a task runs with: its thread's read connection, a runner for the tasks it calls in turn,
 * and its thread's per-app state (what tasks read of it, e.g. a provided lead reader, is filled
 * by the app's modules, or in a worker by the task list's `prepare`). `ServiceDeps` is one too.
 */
export interface ReadContext {
  db: Db;
  /** the analytics engine (DuckDB), reached from this thread */
  engine: ColumnarEngine;
  /** inside a worker, runs a task inline on the same connection */
  reads: ReadRunner;
  state: AppState;
}

/** Runs read tasks: the pool on the request thread, inline inside a worker. */
export interface ReadRunner {
  run<I, R>(task: ReadTask<I, R>, project: ProjectRef, input: I, opts?: ReadOptions): Promise<R>;
  /** A task answering text chunks (a download), read one at a time as the caller asks. */
  stream<I>(
    task: ReadTask<I, AsyncIterable<string>>,
    project: ProjectRef,
    input: I,
  ): AsyncIterableIterator<string>;
}

export interface ReadOptions {
  /**
   * How long the answer may take, queue included (default: the pool's `READ_TIMEOUT`). A kept
   * answer computed in the background gives itself longer than a caller waits.
   */
  deadlineMs?: number;
}

export const defineReadTask = <I, R>(
  name: string,
  run: (ctx: ReadContext, project: ProjectRef, input: I) => Promise<R>,
): ReadTask<I, R> => ({ name, run });

/** Runs every task at once on one connection: inside a worker, and where no worker can open the database. */
export class InlineReads implements ReadRunner {
  constructor(
    private readonly db: Db,
    private readonly state: AppState,
    private readonly engine: ColumnarEngine,
  ) {}

  run<I, R>(task: ReadTask<I, R>, project: ProjectRef, input: I): Promise<R> {
    return task.run({ db: this.db, reads: this, state: this.state, engine: this.engine }, project, input);
  }

  async *stream<I>(task: ReadTask<I, AsyncIterable<string>>, project: ProjectRef, input: I) {
    yield* await this.run(task, project, input);
  }
}

/**
 * A stream of chunks as a response body, once its first chunk is in: a refusal (a full pool, an
 * invalid filter) is still an error answer then, not a broken download.
 */
export async function streamFromFirst(chunks: AsyncIterableIterator<string>): Promise<Readable> {
  const first = await chunks.next();
  async function* all() {
    if (first.done) return;
    yield first.value;
    yield* chunks;
  }
  return Readable.from(all());
}

/** The tasks a worker can run, by name, as the module list hands them over (modules/read-tasks.ts). */
export interface ReadTaskList {
  tasks: ReadTask<never, unknown>[];
  /** Fills a worker's state before its first task, as the modules' registrations fill an app's. */
  prepare?: (holder: StateHolder) => void;
}
