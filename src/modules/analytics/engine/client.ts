import { MessageChannel, type MessagePort, type Worker } from "node:worker_threads";
import path from "node:path";
import { type Config, isPostgres } from "../../../config.js";
import type { ReaderConfig } from "../../../platform/db/reader.js";
import { type ColumnarEngine, EngineAsker, type EngineReply } from "../../../platform/engine.js";
import { startModuleThread } from "../../../platform/threads.js";

export interface EngineOptions {
  /** the DuckDB file (DATA_DIR/analytics.duckdb) */
  path: string;
  memoryMb: number;
  threads: number;
  /** how often the copy takes new events when no report asks */
  pollMs: number;
  reader: ReaderConfig;
  /** how many files (`analytics.duckdb`, `analytics-2.duckdb` …) to try when other processes hold the first */
  slots?: number;
  /** a sync past this many events is a catch-up: queries are answered 503 meanwhile (default 100,000) */
  catchUpEvents?: number;
}

/** Where a server with this configuration keeps the engine's file (an in-memory database: in memory too). */
export const engineFileOf = (config: Config): string =>
  !isPostgres(config) && config.sqlitePath === ":memory:"
    ? ":memory:"
    : path.join(config.dataDir, "analytics.duckdb");

/**
 * The engine on the app's side: starts its thread on first use, answers queries through it, and
 * gives each read worker a port of its own.
 */
export class AnalyticsEngine implements ColumnarEngine {
  private worker?: Worker;
  private asker?: EngineAsker;
  private ready?: Promise<void>;

  constructor(
    private readonly entry: URL,
    private readonly opts: EngineOptions,
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.started().then((a) => a.query<T>(sql, params));
  }

  /** Takes every committed event now (a report asks for this implicitly). */
  sync(): Promise<number> {
    return this.started().then((a) => a.ask<number>({ kind: "sync" }));
  }

  /** Drops the copy and takes every stored event again; `progress` gets the events taken so far. */
  rebuild(progress?: (events: number) => void): Promise<number> {
    return this.started().then((a) => a.ask<number>({ kind: "rebuild" }, progress));
  }

  /**
   * A port to the engine for another thread (a read worker). The engine's end goes to its thread
   * once the engine runs (`wake`, when that thread first needs it); requests wait in the port.
   */
  port(): MessagePort {
    const { port1, port2 } = new MessageChannel();
    this.waiting.push(port1);
    if (this.asker) this.handOver();
    return port2;
  }

  /** Starts the engine (a read worker is about to use it). */
  wake(): void {
    void this.started().catch(() => {});
  }

  private waiting: MessagePort[] = [];

  private handOver(): void {
    for (const port of this.waiting.splice(0))
      this.asker!.ask({ kind: "port", port }, undefined, [port]).catch(() => {});
  }

  async close(): Promise<void> {
    if (!this.worker) return;
    const worker = this.worker;
    await this.asker!.ask({ kind: "close" }).catch(() => {});
    await worker.terminate();
    this.worker = undefined;
  }

  private async started(): Promise<EngineAsker> {
    if (!this.ready) {
      const worker = startModuleThread(this.entry, { ...this.opts });
      const asker = new EngineAsker((m, transfer) => worker.postMessage(m, transfer ?? []));
      this.worker = worker;
      this.asker = asker;
      this.ready = new Promise<void>((resolve, reject) => {
        worker.on("message", (m: EngineReply) => (m.kind === "ready" ? resolve() : asker.answer(m)));
        worker.on("error", (err) => {
          this.onError(err);
          reject(err);
          asker.failAll(err instanceof Error ? err : new Error(String(err)));
        });
        worker.on("exit", () => {
          asker.failAll(new Error("analytics engine stopped"));
          this.ready = undefined;
        });
      });
    }
    await this.ready;
    this.handOver();
    return this.asker!;
  }
}
