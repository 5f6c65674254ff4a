import { createHash } from "node:crypto";
import { hostname } from "node:os";

/**
 * The rollup shard this process writes on PostgreSQL (migration 0393): 1–15 from its host and
 * port, so two API processes update rows of their own instead of queueing on one row's lock, and
 * a restarted process reuses its rows (the number of rows per key stays bounded). Two processes
 * may draw the same shard; they then share rows, correctly, as before. SQLite (one writer): 0.
 */
export function rollupShard(postgres: boolean, port: number, host = hostname()): number {
  return postgres ? 1 + (createHash("sha256").update(`${host}:${port}`).digest().readUInt32BE(0) % 15) : 0;
}

/** A rollup table's conflict key: with the shard on PostgreSQL, as its primary key is. */
export function rollupKey<C extends string>(columns: C[], postgres: boolean): (C | "shard")[] {
  return postgres ? [...columns, "shard"] : columns;
}
