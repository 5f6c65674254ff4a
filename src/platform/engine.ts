import type { MessagePort } from "node:worker_threads";
import { AppError } from "./errors.js";

/**
 * The analytics engine as every caller sees it (DESIGN: a columnar copy of the events, DuckDB;
 * implemented by analytics/engine/): SQL in, plain rows out, run on the engine's own threads. The
 * platform holds only its shape and the messages that reach it from another thread, so the read
 * pool can hand it to its workers.
 */
export interface ColumnarEngine {
  /**
   * Runs one query after the copy has taken every event committed before the call; while the copy
   * catches up with a large backlog, a 503 (`UNAVAILABLE`, Retry-After) instead of a long wait.
   */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Takes every event committed now; resolves with how many it took (the app's engine; not a stub's). */
  sync?(): Promise<number>;
}

/** What the engine's thread is asked: a query, a sync, a rebuild, a new port (a read worker's), to close. */
export type EngineRequest =
  | { kind: "query"; id: number; sql: string; params: unknown[] }
  | { kind: "sync"; id: number }
  | { kind: "rebuild"; id: number }
  | { kind: "port"; id: number; port: MessagePort }
  | { kind: "close"; id: number };

/** What it answers: a result, a rebuild's progress, an error, or (id 0) that it is ready. */
export type EngineReply =
  | { id: number; kind: "done"; value: unknown }
  | { id: number; kind: "progress"; events: number }
  /** `retryAfter`: the engine cannot answer yet (catching up): a 503 with Retry-After, seconds */
  | { id: number; kind: "error"; message: string; retryAfter?: number }
  | { id: 0; kind: "ready" };

/** A request before its id is given. */
type Unsent = EngineRequest extends infer R ? (R extends EngineRequest ? Omit<R, "id"> : never) : never;

/** Asks the engine's thread over one port: one pending answer per request id. */
export class EngineAsker implements ColumnarEngine {
  private nextId = 1;
  private pending = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: unknown) => void; progress?: (n: number) => void }
  >();

  constructor(private readonly post: (m: EngineRequest, transfer?: MessagePort[]) => void) {}

  answer(m: EngineReply): void {
    const p = this.pending.get(m.id);
    if (!p) return;
    if (m.kind === "progress") {
      p.progress?.(m.events);
      return;
    }
    this.pending.delete(m.id);
    if (m.kind === "done") p.resolve(m.value);
    else if (m.kind === "error" && m.retryAfter !== undefined)
      p.reject(
        new AppError("UNAVAILABLE", `the analytics engine is ${m.message}`, {
          "retry-after": String(m.retryAfter),
        }),
      );
    else if (m.kind === "error") p.reject(new Error(`analytics engine: ${m.message}`));
  }

  failAll(err: Error): void {
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  ask<T>(m: Unsent, progress?: (n: number) => void, transfer?: MessagePort[]): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, progress });
      this.post({ ...m, id } as EngineRequest, transfer);
    });
  }

  query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.ask<T[]>({ kind: "query", sql, params });
  }

  sync(): Promise<number> {
    return this.ask<number>({ kind: "sync" });
  }
}

/** A read worker's way to the engine: the port its pool handed it (see `AnalyticsEngine.port`). */
export function engineOverPort(port: MessagePort, wake: () => void = () => {}): ColumnarEngine {
  let woken = false;
  // The engine starts on first use: the first request tells the app to start it; requests wait in
  // the port until the engine's thread takes it.
  const asker = new EngineAsker((m) => {
    if (!woken) {
      woken = true;
      wake();
    }
    port.postMessage(m);
  });
  port.on("message", (m: EngineReply) => asker.answer(m));
  port.unref();
  return asker;
}
