import { sql } from "kysely";
import { type DbOrTrx, isPostgresDb } from "../../../platform/db/index.js";
import { ensureMonthlyPartitions, monthAfter } from "../../../platform/db/partitions.js";

/** Months of `events` partitions kept ahead of now on PostgreSQL (migration 0304). */
export const MONTHS_AHEAD = 2;
/** how often the partitions job looks ahead */
export const PARTITIONS_EVERY_MS = 86_400_000;

/**
 * PostgreSQL: creates the missing monthly partitions of `events` (by `received_at`) from `fromMs`'s
 * month through `toMs`'s, by default this month and the next MONTHS_AHEAD. Returns their names;
 * nothing to do on SQLite (one table).
 */
export async function ensureEventPartitions(
  db: DbOrTrx,
  fromMs = Date.now(),
  toMs = monthAfter(fromMs, MONTHS_AHEAD),
): Promise<string[]> {
  if (!isPostgresDb(db)) return [];
  return ensureMonthlyPartitions((text) => sql.raw(text).execute(db), "events", fromMs, toMs);
}
