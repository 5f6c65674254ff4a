import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { loadConfig } from "../../src/config.js";
import { type DbHandle, openDatabase } from "../../src/platform/db/index.js";
import { migrateToLatest } from "../../src/platform/db/migrate.js";

/**
 * A migrated SQLite file of its own, whatever DATABASE_URL says: for tests of SQLite-only storage
 * (the per-visitor index's tail and buckets, the session tracker's own lookups).
 */
export async function openMigratedSqlite(name: string): Promise<DbHandle & { remove(): Promise<void> }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `lift-${name}-`));
  const handle = openDatabase(loadConfig({}, { dataDir, secretKey: "test" }));
  await migrateToLatest(handle.db, handle.dialect);
  return {
    ...handle,
    async remove() {
      await handle.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
