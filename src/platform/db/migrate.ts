import { readdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type SQLite from "better-sqlite3";
import { type Kysely, type Migration, type MigrationProvider, Migrator } from "kysely";
import { retryWhileBusy } from "./busy.js";
import type { Db, Dialect } from "./types.js";

/**
 * Migrations live in `src/platform/db/migrations/NNNN_name.ts`, ordered by name. Each exports
 * `up(db, dialect)`; the dialect lets a migration pick an auto-increment type or a partial index,
 * everything else is written once with the portable column types (text, integer, bigint,
 * double precision).
 */
export type MigrationUp = (db: Kysely<any>, dialect: Dialect) => Promise<void>;

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");

class FolderProvider implements MigrationProvider {
  constructor(private dialect: Dialect) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    const files = (await readdir(dir)).filter((f) => /^\d{4}_.*\.(ts|js)$/.test(f) && !f.endsWith(".d.ts"));
    const out: Record<string, Migration> = {};
    for (const file of files.sort()) {
      const mod = (await import(pathToFileURL(path.join(dir, file)).href)) as { up: MigrationUp };
      out[file.replace(/\.(ts|js)$/, "")] = { up: (db) => mod.up(db, this.dialect) };
    }
    return out;
  }
}

/**
 * `schema` (PostgreSQL) pins Kysely's own bookkeeping tables to that schema: without it the
 * migrator's existence check sees another schema's lock table and skips creating its own.
 */
export async function migrateToLatest(
  db: Kysely<any>,
  dialect: Dialect,
  schema?: string,
  sqlite?: SQLite.Database,
): Promise<void> {
  const migrator = folderMigrator(db, dialect, schema);
  // PostgreSQL: Kysely's migrator serialises processes with an advisory lock. Its SQLite adapter
  // takes no lock (it assumes one process), so two processes starting on a new file would both
  // create the same tables; holding the file's write lock for the whole run makes them take turns,
  // and the second then finds every migration done.
  // BEGIN IMMEDIATE waits past busy_timeout (5 s a try) while another process migrates: ~a minute.
  if (sqlite) retryWhileBusy(() => sqlite.exec("BEGIN IMMEDIATE"), { attempts: 12, waitMs: 0 });
  let outcome: Awaited<ReturnType<Migrator["migrateToLatest"]>>;
  try {
    outcome = await migrator.migrateToLatest();
  } finally {
    if (sqlite?.inTransaction) sqlite.exec(outcome! && !outcome.error ? "COMMIT" : "ROLLBACK");
  }
  const { error, results } = outcome;
  const failed = results?.find((r) => r.status === "Error");
  if (error || failed) {
    throw new Error(
      `migration ${failed?.migrationName ?? ""} failed: ${String((error as Error)?.message ?? error)}`,
    );
  }
}

/**
 * Migrates an opened database (SQLite: on its own connection, under the write lock above), so a
 * caller holding a handle needs neither its dialect nor its connection.
 */
export function migrateDatabase(
  handle: { db: Db; dialect: Dialect; sqlite?: SQLite.Database },
  schema?: string,
): Promise<void> {
  return migrateToLatest(handle.db, handle.dialect, schema, handle.sqlite);
}

function folderMigrator(db: Kysely<any>, dialect: Dialect, schema?: string): Migrator {
  return new Migrator({
    migrationTableSchema: dialect === "postgres" ? (schema ?? "public") : undefined,
    db,
    provider: new FolderProvider(dialect),
    allowUnorderedMigrations: true,
  });
}

/** Migrations up to and including `name`: a database as an older release left it (migration tests). */
export async function migrateUpTo(db: Kysely<any>, dialect: Dialect, name: string): Promise<void> {
  const { error } = await folderMigrator(db, dialect).migrateTo(name);
  if (error) throw error;
}

/** Auto-increment primary key column type for the dialect. */
export function serialType(dialect: Dialect): "integer" | "bigserial" {
  return dialect === "postgres" ? "bigserial" : "integer";
}
