import path from "node:path";
import { ensurePrivateDir, ensurePrivateFile, narrowIfPresent } from "../private-files.js";
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect, sql } from "kysely";
import pg from "pg";
import { type Config, isPostgres } from "../../config.js";
import { retryWhileBusy } from "./busy.js";
import { startCheckpointer } from "./checkpointer.js";
import { ShardedPostgresDialect, rollupShard } from "./shard.js";
import type { Database, Db, DbOrTrx, Dialect, Trx } from "./types.js";

export { enterExclusive } from "./exclusive.js";
export { isUniqueViolation } from "./unique.js";

export { type Db, type DbOrTrx, type Dialect, type Trx, isPostgresDb } from "./types.js";

export interface DbHandle {
  db: Db;
  dialect: Dialect;
  /** Raw driver for hot paths (group-commit writer, benchmarks). */
  sqlite?: SQLite.Database;
  /** SQLite files: lets the WAL start over when it has grown; call between write transactions */
  maintainWal?: () => Promise<void>;
  pool?: pg.Pool;
  close(): Promise<void>;
}

// int8 and numeric come back as strings by default; our values fit in a double.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

/**
 * Kysely's SQLite driver prepares every query anew; compiled statements are reusable, so keep the
 * most recent ones by SQL text. Safe because the driver runs `all`/`run` synchronously; a statement
 * being iterated (streamed) is never handed out again until it is done.
 */
export function withStatementCache(sqlite: SQLite.Database, max = 500): SQLite.Database {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = (source: string) => {
    let stmt = cache.get(source);
    if (stmt && !stmt.busy) return stmt;
    stmt = sqlite.prepare(source);
    if (cache.size >= max) cache.delete(cache.keys().next().value as string);
    cache.set(source, stmt);
    return stmt;
  };
  return new Proxy(sqlite, {
    get(target, prop, receiver) {
      if (prop === "prepare") return prepare;
      const v = Reflect.get(target, prop, receiver);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

export function openDatabase(config: Config): DbHandle {
  if (isPostgres(config)) {
    const pool = new pg.Pool({
      connectionString: config.databaseUrl,
      max: 10,
      options: config.databaseSchema ? `-c search_path=${config.databaseSchema}` : undefined,
    });
    // An idle client error (server restart) must not crash the process.
    pool.on("error", () => {});
    const shard = config.rollupShard ?? rollupShard(config.port);
    const db = new Kysely<Database>({ dialect: new ShardedPostgresDialect({ pool }, shard) });
    return { db, dialect: "postgres", pool, close: () => db.destroy() };
  }
  if (config.sqlitePath !== ":memory:") {
    // SQLite gives its -wal and -shm files the database file's mode, so a 0600 file keeps all three private.
    ensurePrivateDir(path.dirname(config.sqlitePath));
    ensurePrivateFile(config.sqlitePath);
    narrowIfPresent(`${config.sqlitePath}-wal`, `${config.sqlitePath}-shm`);
  }
  const sqlite = new SQLite(config.sqlitePath);
  sqlite.pragma("busy_timeout = 5000");
  // Switching a new file to WAL takes an exclusive lock without the busy handler: a second process
  // starting on the same new file while the first migrates would fail at once.
  retryWhileBusy(() => sqlite.pragma("journal_mode = WAL"), { attempts: 200, waitMs: 50 });
  // NORMAL in WAL mode is durable against process crashes (the WAL is written before commit returns);
  // only an OS crash or power loss can lose the last transactions.
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  if (config.sqlitePath === ":memory:") return { db, dialect: "sqlite", sqlite, close: () => db.destroy() };
  // Checkpoints run on their own thread (checkpointer.ts); this connection checkpoints only if the
  // WAL passes ~400 MB, should that thread fall behind.
  sqlite.pragma("wal_autocheckpoint = 100000");
  const checkpointer = startCheckpointer(config.sqlitePath, {
    onError: (message) => process.emitWarning(`WAL checkpoint failed: ${message}`),
  });
  return {
    db,
    dialect: "sqlite",
    sqlite,
    // Through Kysely's connection, so no transaction is open on it meanwhile.
    maintainWal: () =>
      checkpointer.restartIfLarge(() =>
        db.connection().execute(async (c) => {
          const { rows } = await sql<{ busy: number }>`pragma wal_checkpoint(truncate)`.execute(c);
          return rows[0]?.busy === 0;
        }),
      ),
    close: async () => {
      await checkpointer.stop();
      await db.destroy();
    },
  };
}

// PostgreSQL: deadlock_detected and serialization_failure mean "run it again"; the server has
// already rolled the transaction back, so a retry is safe.
const RETRYABLE = new Set(["40P01", "40001"]);

/** A PostgreSQL deadlock or serialization failure: the transaction was rolled back and may run again. */
export const isRetryableTransactionError = (err: unknown): boolean =>
  RETRYABLE.has((err as { code?: string } | null)?.code ?? "");

/**
 * The one way to run in a transaction: inside the caller's when `db` already is one, else in a new
 * one, retried up to `attempts` times when PostgreSQL reports a deadlock or serialization failure
 * (two requests touching the same rows in opposite orders). SQLite has a single writer and never
 * deadlocks, so there it runs once. Pass `attempts: 1` when `fn` has effects outside the database.
 */
export async function withTransaction<T>(
  db: DbOrTrx,
  fn: (trx: Trx) => Promise<T>,
  { attempts = 4 }: { attempts?: number } = {},
): Promise<T> {
  if (db.isTransaction) return fn(db as Trx);
  for (let i = 1; ; i++) {
    try {
      return await db.transaction().execute(fn);
    } catch (err) {
      if (i >= attempts || !isRetryableTransactionError(err)) throw err;
      await new Promise((r) => setTimeout(r, 5 * 2 ** i + Math.random() * 10));
    }
  }
}
