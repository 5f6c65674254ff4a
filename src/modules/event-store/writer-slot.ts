import type { FastifyBaseLogger } from "fastify";
import type { Redis } from "ioredis";
import type { DbHandle } from "../../platform/db/index.js";
import { type ServiceDeps, appSlot, stateOf } from "../../platform/deps.js";
import type { EventBus } from "../../platform/event-bus.js";
import { SessionStep } from "./sessions/session-step.js";
import { openEventStore } from "./store/index.js";
import type { SqliteStoreOptions } from "./store/sqlite.js";
import { EventWriter, type WriterOptions } from "./writer.js";

/**
 * A group-commit writer over the handle's event store and a session step. PostgreSQL with `redis`:
 * sessions are decided through Redis, alike in every process (sessions/shared-sessions.ts).
 */
export function openEventWriter(
  handle: DbHandle,
  bus: EventBus,
  log: FastifyBaseLogger,
  opts: WriterOptions & Partial<SqliteStoreOptions> & { redis?: Redis },
): EventWriter {
  const { indexMergeRows = 262_144, indexMergeStep, redis, ...writer } = opts;
  const store = openEventStore(handle, { indexMergeRows, indexMergeStep }, log);
  const sessions = new SessionStep(store.visitorStates, redis, log);
  return new EventWriter(store, sessions, bus, log, writer);
}

// One group-commit writer per app.
const WRITER = appSlot("events.writer", (deps) =>
  openEventWriter(deps.dbHandle, deps.eventBus, deps.log, {
    maxEvents: 5000,
    maxDelayMs: 0,
    indexMergeRows: deps.config.eventIndexMergeRows,
    // Several API processes over one PostgreSQL decide sessions through Redis (not SQLite's one).
    redis: deps.redis,
  }),
);

/** The app's group-commit writer. */
export const writerFor = (deps: ServiceDeps): EventWriter => stateOf(deps, WRITER);
