import type { MessagePort } from "node:worker_threads";
import type { ProjectRef } from "../auth/principal.js";
import type { ReaderConfig } from "../db/reader.js";
import { AppError } from "../errors.js";
import { fromCrossed } from "./crossing.js";
import type { Answer, ToWorker } from "./protocol.js";
import { type ReadPoolCode, startReader } from "./start.js";
import type { ReadPoolOptions } from "./options.js";
import type { ReadOptions, ReadRunner, ReadTask } from "./task.js";

export type { ReadPoolOptions } from "./options.js";

/**
 * The read pool: a few worker threads, each with its own read connection, that run the read tasks
 * (task.ts) so no report holds the request thread. Bounded everywhere a caller could pile work up:
 * a queue of `maxQueue` tasks, at most `perProject` of them from one project, and a deadline per
 * task after which its caller gets 503 with Retry-After and the work stops (a queued task is
 * dropped; a running one ends with its worker, which is replaced). A streamed task (an export)
 * has the deadline per chunk instead, and holds its place until read to the end or abandoned.
 */

interface Job {
  id: number;
  name: string;
  project: ProjectRef;
  input: unknown;
  stream: boolean;
  /** the caller waiting for the answer (for a stream: for the next chunk) */
  waiter?: { resolve: (v: unknown) => void; reject: (e: unknown) => void; timer: NodeJS.Timeout };
  /** set once a worker runs it */
  slot?: Slot;
  /** a worker that died under it: run again once, then give up (a stream that has sent chunks: never) */
  retried?: boolean;
  sent?: boolean;
}

interface Slot {
  post: (m: ToWorker) => void;
  stop: () => Promise<void>;
  running: Map<number, Job>;
  /** running a task that was on a worker when it died: alone, so it cannot take others down twice */
  solo?: Job;
}

export type { ReadPoolCode } from "./start.js";

/** A stream refused before it started: its first read throws why. */
function refused(err: unknown): AsyncIterableIterator<string> {
  const iterator: AsyncIterableIterator<string> = {
    next: () => Promise.reject(err),
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

const RETRY_AFTER_BUSY = "2";
const RETRY_AFTER_SLOW = "10";
const unavailable = (message: string, retryAfter = RETRY_AFTER_SLOW) =>
  new AppError("UNAVAILABLE", message, { "retry-after": retryAfter });

export class ReadPool implements ReadRunner {
  private slots: Slot[] = [];
  private queue: Job[] = [];
  private byProject = new Map<string, number>();
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly code: ReadPoolCode,
    private readonly db: ReaderConfig,
    private readonly opts: ReadPoolOptions,
    private readonly onWorkerError: (err: unknown) => void = () => {},
    /** a port to the analytics engine for each new worker, and how to start the engine when one needs it */
    private readonly engine?: { port: () => MessagePort; wake: () => void },
  ) {}

  /** Tasks waiting and running now (metrics, tests). */
  get load(): { queued: number; running: number } {
    let running = 0;
    for (const s of this.slots) running += s.running.size;
    return { queued: this.queue.length, running };
  }

  run<I, R>(task: ReadTask<I, R>, project: ProjectRef, input: I, opts: ReadOptions = {}): Promise<R> {
    try {
      const job = this.admit(task.name, project, input, false);
      return this.await(job, opts.deadlineMs ?? this.opts.timeoutMs) as Promise<R>;
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * A task whose answer is a sequence of text chunks (an export), read one chunk at a time as the
   * caller asks for them: refused at once like `run` when the pool is full, the next chunk due
   * within the deadline, the worker's side closed when the caller stops early.
   */
  stream<I>(
    task: ReadTask<I, AsyncIterable<string>>,
    project: ProjectRef,
    input: I,
  ): AsyncIterableIterator<string> {
    let job: Job;
    try {
      job = this.admit(task.name, project, input, true);
    } catch (err) {
      return refused(err);
    }
    let done = false;
    /** The caller is done with it: its place is given back; a worker still reading stops. */
    const finish = (cancel: boolean) => {
      if (done) return;
      done = true;
      const queued = this.queue.indexOf(job);
      if (queued >= 0) this.queue.splice(queued, 1);
      if (this.leave(job)) {
        if (cancel) job.slot!.post({ kind: "cancel", id: job.id });
        this.dispatch();
      }
      this.release(job);
    };
    const iterator: AsyncIterableIterator<string> = {
      next: async () => {
        if (done) return { done: true, value: undefined };
        try {
          const m = (await this.await(job, this.opts.timeoutMs)) as { done?: boolean; chunk?: string };
          if (m.done) finish(false);
          return m.done ? { done: true, value: undefined } : { done: false, value: m.chunk! };
        } catch (err) {
          finish(true);
          throw err;
        }
      },
      return: async () => {
        finish(true);
        return { done: true, value: undefined };
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0))
      this.fail(job, unavailable("the server is shutting down; retry the request"));
    await Promise.all(this.slots.splice(0).map((s) => s.stop()));
  }

  /** A place in the queue, or a refusal: shutting down, the project's share taken, the queue full. */
  private admit(name: string, project: ProjectRef, input: unknown, stream: boolean): Job {
    if (this.closed) throw unavailable("the server is shutting down; retry the request");
    const held = this.byProject.get(project.id) ?? 0;
    if (held >= this.opts.perProject)
      throw new AppError(
        "RATE_LIMITED",
        `too many reports of this project in progress (${this.opts.perProject}); retry when one has answered`,
        { "retry-after": RETRY_AFTER_BUSY },
      );
    if (this.queue.length >= this.opts.maxQueue)
      throw unavailable("the server is busy answering reports; retry shortly", RETRY_AFTER_BUSY);
    this.byProject.set(project.id, held + 1);
    const job: Job = { id: this.nextId++, name, project, input, stream };
    this.queue.push(job);
    this.dispatch();
    return job;
  }

  /** The job's next answer (its result, or a stream's next chunk) within `deadlineMs`. */
  private await(job: Job, deadlineMs: number): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.expire(job, deadlineMs), deadlineMs);
      job.waiter = { resolve, reject, timer };
      if (job.stream && job.slot) job.slot.post({ kind: "pull", id: job.id });
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const job = this.queue[0]!;
      const slot = this.freeSlot(job.retried === true);
      if (!slot) return;
      this.queue.shift();
      job.slot = slot;
      if (job.retried) slot.solo = job;
      slot.running.set(job.id, job);
      const { id, name, project, input, stream } = job;
      slot.post({ kind: "start", id, name, project, input, stream });
      if (stream && job.waiter) slot.post({ kind: "pull", id });
    }
  }

  /** The least busy worker with room (an idle one for a task run alone), starting one while fewer than allowed. */
  private freeSlot(alone: boolean): Slot | undefined {
    let best: Slot | undefined;
    for (const s of this.slots) {
      if (s.solo || s.running.size >= this.opts.perWorker || (alone && s.running.size > 0)) continue;
      if (!best || s.running.size < best.running.size) best = s;
    }
    if (best && best.running.size === 0) return best;
    if (this.slots.length < this.opts.workers) return this.spawn();
    return best;
  }

  private spawn(): Slot {
    const slot: Slot = { running: new Map(), post: () => {}, stop: async () => {} };
    const reader = startReader(
      this.code,
      this.db,
      this.opts,
      {
        answer: (m) => this.answer(slot, m),
        error: (err) => {
          this.onWorkerError(err);
          this.lose(slot, err);
        },
        exit: () => this.lose(slot),
      },
      this.engine?.port(),
    );
    slot.post = reader.post;
    slot.stop = reader.stop;
    this.slots.push(slot);
    return slot;
  }

  private answer(slot: Slot, m: Answer): void {
    if (m.id === 0 && m.ok && m.value === "engine") {
      this.engine?.wake();
      return;
    }
    const job = slot.running.get(m.id);
    if (!job) return;
    if (!m.ok) {
      this.leave(job);
      this.fail(job, fromCrossed(m.error));
      this.dispatch();
      return;
    }
    if (job.stream) {
      job.sent = true;
      this.deliver(job, m.value);
      return;
    }
    this.leave(job);
    this.deliver(job, m.value);
    this.release(job);
    this.dispatch();
  }

  /** A worker is gone (crashed, out of memory, or stopped): its tasks run once more elsewhere, else fail. */
  private lose(slot: Slot, err?: unknown): void {
    const at = this.slots.indexOf(slot);
    if (at < 0) return;
    this.slots.splice(at, 1);
    const orphans = [...slot.running.values()];
    slot.running.clear();
    for (const job of orphans.reverse()) {
      if (job.retried || job.sent || this.closed) {
        const outOfMemory = (err as { code?: string } | undefined)?.code === "ERR_WORKER_OUT_OF_MEMORY";
        this.fail(
          job,
          unavailable(
            outOfMemory
              ? "the report needed more memory than a reader may use; narrow its period or filter"
              : "the report could not be answered; retry shortly",
          ),
        );
      } else {
        job.retried = true;
        job.slot = undefined;
        this.queue.unshift(job);
      }
    }
    if (!this.closed) this.dispatch();
  }

  /** The deadline passed: the caller is answered 503; a running task's worker is stopped (its other tasks move). */
  private expire(job: Job, deadlineMs: number): void {
    const within = deadlineMs < 1000 ? `${deadlineMs} ms` : `${Math.round(deadlineMs / 1000)} s`;
    const err = unavailable(
      `the report did not finish within ${within}; retry later or narrow its period or filter`,
    );
    const queued = this.queue.indexOf(job);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      this.fail(job, err);
      return;
    }
    const slot = job.slot!;
    if (!this.leave(job)) return;
    this.fail(job, err);
    // The others on that worker did not overrun: they move to a new worker without losing their one retry.
    for (const other of slot.running.values()) other.retried = false;
    void slot.stop();
  }

  /** The job leaves its worker (answered, expired, given up by its reader). */
  private leave(job: Job): boolean {
    const slot = job.slot;
    if (!slot?.running.delete(job.id)) return false;
    if (slot.solo === job) slot.solo = undefined;
    return true;
  }

  private deliver(job: Job, value: unknown): void {
    const waiter = job.waiter;
    job.waiter = undefined;
    if (!waiter) return;
    clearTimeout(waiter.timer);
    waiter.resolve(value);
  }

  /** The job ends with an error: its caller gets it, and its place is given back. */
  private fail(job: Job, err: unknown): void {
    const waiter = job.waiter;
    job.waiter = undefined;
    if (waiter) {
      clearTimeout(waiter.timer);
      waiter.reject(err);
    }
    // A stream gives its place back when its reader finishes (next() after the error, or return()).
    if (!job.stream) this.release(job);
  }

  private release(job: Job): void {
    const held = (this.byProject.get(job.project.id) ?? 1) - 1;
    if (held > 0) this.byProject.set(job.project.id, held);
    else this.byProject.delete(job.project.id);
  }
}
