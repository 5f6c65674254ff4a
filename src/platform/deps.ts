import type { FastifyBaseLogger } from "fastify";
import type { Redis } from "ioredis";
import type { Config } from "../config.js";
import type { SecretBox } from "./crypto.js";
import type { Db, DbHandle } from "./db/index.js";
import type { EventBus } from "./event-bus.js";
import type { JobRegistry } from "./jobs/index.js";
import type { ReadRunner } from "./read-pool/task.js";

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
  /** The shared Redis (REDIS_URL), when configured: state every API process must agree on. */
  redis?: Redis;
  /** Per-app state of the modules (their writers, their registries), held here, not in globals. */
  state: AppState;
}

/** A piece of per-app state a module keeps, created from the app's dependencies on first use. */
export interface AppSlot<T> {
  readonly name: string;
  readonly create: (deps: ServiceDeps) => T;
}

export const appSlot = <T>(name: string, create: (deps: ServiceDeps) => T): AppSlot<T> => ({ name, create });

/** The values of an app's slots; each app (and each test app) has its own. */
export class AppState {
  private values = new Map<AppSlot<unknown>, unknown>();

  get<T>(slot: AppSlot<T>, deps: ServiceDeps): T {
    if (!this.values.has(slot)) this.values.set(slot, slot.create(deps));
    return this.values.get(slot) as T;
  }
}

/** This app's value of a module's slot. */
export const stateOf = <T>(deps: ServiceDeps, slot: AppSlot<T>): T => deps.state.get(slot, deps);
