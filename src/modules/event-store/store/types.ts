import type { CommittedEvent } from "../../../platform/event-bus.js";
import type { Db, Trx } from "../../../platform/db/index.js";
import type { FlushItem } from "../flush-rows.js";
import type { LocalVisitorStates } from "./visitor-states.js";

/** A stored event's key: SQLite's `seq`, PostgreSQL's `id`. */
export type StoreKey = number | string;

/** What a flush's insert leaves behind: each row's key and, when read along, the config versions. */
export interface InsertedRows {
  /** the key of the flush's `i`-th row */
  keyOf(i: number): StoreKey;
  /**
   * The projects' configuration versions when the store read them in the insert's statement
   * (PostgreSQL); undefined: the event bus reads them.
   */
  versions?: Map<string, number>;
}

/** One committed flush: its events and their store keys, in the same order. */
export interface CommittedBatch {
  events: readonly CommittedEvent[];
  keys: readonly StoreKey[];
}

/**
 * Called once per committed flush, in commit order, after the commit and before the flush's
 * requests are answered; never for a flush that rolled back. Synchronous: a listener with slow
 * work queues it and returns.
 */
export type CommittedListener = (batch: CommittedBatch) => void;

/**
 * Where the events writer stores its flushes: the only place that knows the database's dialect.
 * The writer calls, per flush and in its transaction: `claim` (keyed requests only), `insert`,
 * then `committed` or `rolledBack`; between flushes `upkeep` when due and `maintain`.
 */
export interface EventStore {
  /** the database the writer's transactions run on */
  readonly db: Db;
  /**
   * Answer a flush's requests only after the next flush has sent its first statement (PostgreSQL:
   * writing their responses overlaps that round trip instead of delaying it).
   */
  readonly deferAnswers: boolean;
  /**
   * SQLite, where one process owns the file: the session step's lookups of visitor states, on the
   * writer's connection and the store's per-visitor index. Undefined on PostgreSQL.
   */
  readonly visitorStates?: LocalVisitorStates;
  /** the newest stored row's receipt time (SQLite, where one process owns the file), if any */
  newestReceipt(): number | undefined;
  /** Keyed requests (Segment's messageIds): the store's `MessageClaims` (claims/dedup.ts). */
  claim(trx: Trx, items: readonly FlushItem[]): Promise<readonly FlushItem[]>;
  /**
   * Inserts the flush's rows: column values, `WIDTH` per event in `COLUMNS` order (rows.ts), of
   * the events of `items`.
   */
  insert(trx: Trx, values: unknown[], items: readonly FlushItem[]): Promise<InsertedRows>;
  /** the flush's transaction committed: what the store keeps in memory of it is the truth */
  committed(): void;
  /** the flush's transaction rolled back: the store's memory of it goes (keys claimed, index entries) */
  rolledBack(): void;
  /**
   * A flush of `items` failed with `err`: whether the store removed the cause, so that it may run
   * again (PostgreSQL: a month's partition was missing, and is created).
   */
  repair(err: unknown, items: readonly FlushItem[]): Promise<boolean>;
  /** whether a step of the store's own upkeep waits (SQLite: merging the per-visitor index) */
  readonly upkeepDue: boolean;
  /** One upkeep step, between flushes; false when it failed (it is tried again after the next flush). */
  upkeep(): Promise<boolean>;
  /** After every flush, upkeep step or exclusive task (SQLite: the WAL may start over). Never throws. */
  maintain(): Promise<void>;
  /** Before a task that changes stored events alone: upkeep already under way is finished. */
  settle(): Promise<void>;
  /** Such a task committed after deleting the events with these keys (SQLite). */
  forget(keys: readonly number[]): void;
}
