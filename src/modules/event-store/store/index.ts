import type { FastifyBaseLogger } from "fastify";
import type { DbHandle } from "../../../platform/db/index.js";
import { PostgresEventStore } from "./postgres.js";
import { SqliteEventStore, type SqliteStoreOptions } from "./sqlite.js";
import type { EventStore } from "./types.js";

export type { CommittedBatch, CommittedListener, EventStore, StoreKey } from "./types.js";

/** The event store of the handle's database (SQLite: its index options apply). */
export function openEventStore(
  handle: DbHandle,
  opts: SqliteStoreOptions,
  log: FastifyBaseLogger,
): EventStore {
  return handle.sqlite ? new SqliteEventStore(handle, opts, log) : new PostgresEventStore(handle);
}
