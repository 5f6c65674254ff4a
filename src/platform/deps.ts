import type { FastifyBaseLogger } from "fastify";
import type { Config } from "../config.js";
import type { SecretBox } from "./crypto.js";
import type { Db, DbHandle } from "./db/index.js";
import type { EventBus } from "./event-bus.js";
import type { JobRegistry } from "./jobs.js";

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
}
