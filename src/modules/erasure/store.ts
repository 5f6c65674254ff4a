import type SQLite from "better-sqlite3";
import type { DbHandle } from "../../platform/db/index.js";

/**
 * SQLite: the connection under the erasure's transaction, which analytics' stores write through
 * (`eraseAnalyticsOf`); undefined on PostgreSQL.
 */
export const sqliteConnectionOf = (handle: DbHandle): SQLite.Database | undefined => handle.sqlite;
