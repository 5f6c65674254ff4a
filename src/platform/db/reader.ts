import SQLite from "better-sqlite3";
import { Kysely, PostgresDialect, SqliteDialect } from "kysely";
import pg from "pg";
import { type Config, isPostgres } from "../../config.js";
import { withStatementCache } from "./index.js";
import type { Database, Db } from "./types.js";

/** What a reader thread needs to reach the database: plain data, handed across a thread. */
export type ReaderConfig = Pick<Config, "databaseUrl" | "sqlitePath" | "databaseSchema">;

export const readerConfigOf = (c: Config): ReaderConfig => ({
  databaseUrl: c.databaseUrl,
  sqlitePath: c.sqlitePath,
  databaseSchema: c.databaseSchema,
});

export interface ReaderHandle {
  db: Db;
  /** SQLite: the raw connection (a worker's modules may register functions on it) */
  sqlite?: SQLite.Database;
  close(): Promise<void>;
}

/**
 * A connection for reads only, opened by a reader thread beside the app's own: SQLite in WAL mode
 * lets it read while the app writes (it sees each read's latest commit); PostgreSQL gets a small
 * pool of its own. No migrations, no checkpoints: the app that owns the database does those.
 */
export function openReader(config: ReaderConfig, pgConnections = 2): ReaderHandle {
  if (isPostgres(config)) {
    const pool = new pg.Pool({
      connectionString: config.databaseUrl,
      max: pgConnections,
      options: config.databaseSchema ? `-c search_path=${config.databaseSchema}` : undefined,
    });
    pool.on("error", () => {});
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, close: () => db.destroy() };
  }
  const sqlite = new SQLite(config.sqlitePath, { readonly: true, fileMustExist: true });
  sqlite.pragma("busy_timeout = 5000");
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  return { db, sqlite, close: () => db.destroy() };
}
