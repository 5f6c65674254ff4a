import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";
import { addShardToKey } from "../shard.js";

/**
 * The rollup rows every flush of a project updates (its day's and week's visitor
 * sketches and counters, per channel and per breakdown key) were one row per key, so two API
 * processes' flushes queued on their row locks. On PostgreSQL each process now writes rows of its
 * own `shard` (part of the key); reads already merge sketches and sum counters over rows. SQLite
 * has one writer: the column is there (always 0) so queries are the same, the key is unchanged.
 */
const TABLES: [table: string, key: string[]][] = [
  ["analytics_daily", ["project_id", "day", "channel"]],
  ["analytics_weekly", ["project_id", "week", "channel"]],
  ["analytics_breakdown_daily", ["project_id", "dimension", "day", "key"]],
  ["analytics_breakdown_weekly", ["project_id", "dimension", "week", "key"]],
];

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  for (const [table, key] of TABLES) await addShardToKey(db, dialect, table, key);
}
