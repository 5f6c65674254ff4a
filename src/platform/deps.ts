import type { FastifyBaseLogger } from "fastify";
import type { Redis } from "ioredis";
import type { Config } from "../config.js";
import type { SecretBox } from "./crypto.js";
import type { Db, DbHandle } from "./db/index.js";
import type { ColumnarEngine } from "./engine.js";
import type { EventBus } from "./event-bus.js";
import type { JobRegistry } from "./jobs/index.js";
import type { ReadRunner } from "./read-pool/task.js";
import type { AppSlot, AppState } from "./app-state.js";

export {
  type AppSlot,
  AppState,
  type ProvidedSlot,
  type StateHolder,
  provide,
  providedSlot,
  stateOf,
  stateSlot,
} from "./app-state.js";

/**
 * What a service function may use, passed explicitly: the app's shared parts, never the Fastify
 * instance. A module's module.ts hands `app.deps` to its routes and jobs; tests build their own.
 */
export interface ServiceDeps {
  db: Db;
  dbHandle: DbHandle;
  config: Config;
  secrets: SecretBox;
  log: FastifyBaseLogger;
  jobs: JobRegistry;
  eventBus: EventBus;
  /** Runs reads whose cost grows with stored data off the request thread (platform/read-pool/). */
  reads: ReadRunner;
  /** The analytics engine (a columnar copy of the events; analytics/engine/). */
  engine: ColumnarEngine;
  /** The shared Redis (REDIS_URL), when configured: state every API process must agree on. */
  redis?: Redis;
  /**
   * Per-app state of the modules (their writers, caches, registries, and what a higher module
   * provides a lower one), held here, never in module-level variables (platform/app-state.ts).
   */
  state: AppState;
}

/**
 * What a read needs when it asks more than the database (a provided reader, a per-app cache, the
 * analytics engine): a read task's `ReadContext` is one, and so is `ServiceDeps`.
 */
export type ReadDeps = Pick<ServiceDeps, "db" | "state" | "engine">;

/** Per-app state made from the app's dependencies on first use (platform/app-state.ts). */
export const appSlot = <T>(name: string, create: (deps: ServiceDeps) => T): AppSlot<T, ServiceDeps> => ({
  name,
  create,
});
