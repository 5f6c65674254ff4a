import { type Kysely, PostgresAdapter, type Transaction } from "kysely";

/**
 * The database schema as Kysely sees it. Each module adds its own tables to this interface by
 * declaration merging in its `tables.ts`:
 *
 *   declare module "../../platform/db/types.js" { interface Database { goals: GoalTable } }
 *
 * Conventions on both dialects: ids are text, record timestamps are ISO-8601 text
 * (`new Date().toISOString()`), high-volume timestamps are epoch milliseconds (bigint),
 * JSON is stored as text, booleans as integer 0/1.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by module augmentation
export interface Database {}

export type Dialect = "sqlite" | "postgres";
export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
/** Either the root handle or a transaction: service functions that may join a caller's transaction take this. */
export type DbOrTrx = Kysely<Database> | Transaction<Database>;

/** Whether a handle or transaction runs on PostgreSQL (for dialect-specific SQL: row locks, indexes). */
export function isPostgresDb(db: DbOrTrx): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
