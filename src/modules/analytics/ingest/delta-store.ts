import type SQLite from "better-sqlite3";
import { type DbHandle, type Trx, isPostgresDb } from "../../../platform/db/index.js";
import { writerShard } from "../../../platform/db/shard.js";
import { type BreakdownDeltas, applyBreakdownDeltas } from "./breakdown-store.js";
import { type RollupDeltas, applyRollupDeltas } from "./rollup-store.js";
import { applyRollupsPostgres } from "./rollup-store-pg.js";

/**
 * The connection the write path's prepared statements run on: SQLite's (better-sqlite3 has one
 * connection, so a statement on it runs inside the Kysely transaction on it), none on PostgreSQL.
 * Steps hand it back to the stores as they got it.
 */
export type RawConnection = SQLite.Database | undefined;

/** The handle's raw connection for the stores (`RawConnection`). */
export const rawConnection = (handle: Pick<DbHandle, "sqlite">): RawConnection => handle.sqlite;

/**
 * Writes a batch's rollup and breakdown deltas in the caller's transaction: on PostgreSQL in two
 * statements into this process's rows (rollup-store-pg.ts, platform/db/shard.ts), on SQLite (one
 * writer, shard 0) row by row with prepared statements on `raw`, the connection under `trx`.
 */
export async function applyAnalyticsDeltas(
  trx: Trx,
  rollups: RollupDeltas,
  breakdowns: BreakdownDeltas,
  { raw }: { raw?: RawConnection } = {},
): Promise<void> {
  if (isPostgresDb(trx)) return applyRollupsPostgres(trx, rollups, breakdowns, writerShard(trx));
  await applyRollupDeltas(trx, rollups, raw);
  if (breakdowns.rows.length === 0) return;
  if (!raw) throw new Error("breakdowns on SQLite need the raw connection");
  applyBreakdownDeltas(raw, breakdowns);
}
