import { type RawBuilder, sql } from "kysely";
import type { DbHandle, Trx } from "../../../platform/db/index.js";
import { isMissingPartition } from "../../../platform/db/partitions.js";
import { readConfigVersions } from "../../../platform/config-version.js";
import type { FlushItem } from "../flush-rows.js";
import { ensureEventPartitions } from "./partitions.js";
import { PostgresClaims } from "../claims/claims-store.js";
import { COLUMNS, WIDTH } from "./rows.js";
import type { EventStore, InsertedRows } from "./types.js";

const PG_TYPES = [
  "text",
  "text",
  "text",
  "text",
  "text",
  "text",
  "text",
  "text",
  "bigint",
  "bigint",
  "text",
  "text",
  "text",
  "integer",
  "integer",
];

/**
 * PostgreSQL: several processes may write. A flush's rows go in one `insert … select * from
 * unnest(…)`, sent in the statement that reads (and share-locks) the projects' configuration
 * versions, one round trip for both; `events` is partitioned by month of receipt, and a month
 * whose partition is missing is created and the flush run again. Message keys are claimed on a
 * primary key (claims/claims-store.ts). Rows are keyed by their time-ordered `id`.
 */
export class PostgresEventStore implements EventStore {
  readonly db;
  readonly deferAnswers = true;
  readonly upkeepDue = false;
  private claims = new PostgresClaims();

  constructor(handle: DbHandle) {
    this.db = handle.db;
  }

  newestReceipt(): undefined {
    return undefined;
  }

  claim(trx: Trx, items: readonly FlushItem[]): Promise<readonly FlushItem[]> {
    return this.claims.claim(trx, items);
  }

  async insert(trx: Trx, values: unknown[], items: readonly FlushItem[]): Promise<InsertedRows> {
    const projects = [...new Set(items.map((it) => it.project.id))];
    const versions = await readConfigVersions(trx, projects, { along: insertStatement(values) });
    return { keyOf: (i) => values[i * WIDTH] as string, versions };
  }

  committed(): void {}
  rolledBack(): void {}

  /** No partition for a month of the flush (the look-ahead job has not run): it is created. */
  async repair(err: unknown, items: readonly FlushItem[]): Promise<boolean> {
    if (!isMissingPartition(err)) return false;
    const times = items.map((it) => it.receivedAt);
    await ensureEventPartitions(this.db, Math.min(...times), Math.max(...times));
    return true;
  }

  async upkeep(): Promise<boolean> {
    return true;
  }

  async maintain(): Promise<void> {}
  async settle(): Promise<void> {}
  forget(): void {}
}

/** One `insert … select * from unnest(…)` per flush, 15 array parameters whatever the row count. */
function insertStatement(values: unknown[]): RawBuilder<unknown> {
  const n = values.length / WIDTH;
  const cols = COLUMNS.map((_, c) => Array.from({ length: n }, (_, r) => values[r * WIDTH + c]));
  const list = sql.join(COLUMNS.map((c) => sql.ref(c)));
  const arrays = sql.join(cols.map((vs, i) => sql`${vs}::${sql.raw(PG_TYPES[i]!)}[]`));
  return sql`insert into events (${list}) select * from unnest(${arrays})`;
}
