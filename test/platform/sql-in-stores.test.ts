import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

/**
 * Files not yet moved to the rule, relative to src/modules: each is deleted from here once its
 * dialect work has moved into a store file. One per line.
 */
const NOT_YET_IN_STORES: string[] = [];

/**
 * SQL lives in stores (docs/platform.md, "Where SQL lives"): a module's dialect work — a branch on
 * SQLite vs PostgreSQL, the raw SQLite connection, a raw prepared statement — is only in its store
 * files, so a reader finds a module's rules without the database's and each dialect's SQL in one
 * place. Kysely's portable query builder is fine anywhere.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const MODULES = path.join(ROOT, "src/modules");

/**
 * A branch on the dialect, the raw SQLite connection (read off a handle, or taken apart from one),
 * or a raw prepared statement (better-sqlite3's, or the platform's cached `preparedOn`).
 */
const DIALECT_WORK = /isPostgres(Db)?\(|\.sqlite\b|\{[^}]*\bsqlite\b[^}]*\}\s*=|\.prepare\(|\bpreparedOn\(/;

/** `store.ts`, a file under a `store/` folder, `*-store.ts`, or the analytics engine (DuckDB's one dialect). */
function isStoreFile(rel: string): boolean {
  const parts = rel.split("/");
  const name = parts[parts.length - 1]!;
  return (
    name === "store.ts" ||
    name.endsWith("-store.ts") ||
    parts.slice(0, -1).includes("store") ||
    rel.startsWith("analytics/engine/")
  );
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) return sourceFiles(p);
    return /\.ts$/.test(d.name) && !/\.(test|testing|d)\.ts$/.test(d.name) ? [p] : [];
  });
}

/** Each line of `text` doing dialect work, as `line: text`. */
function dialectLines(text: string): string[] {
  return text.split("\n").flatMap((line, i) => (DIALECT_WORK.test(line) ? [`${i + 1}: ${line.trim()}`] : []));
}

describe("SQL in stores, not in services", () => {
  it("no module file outside a store branches on the dialect or prepares raw SQL", () => {
    const found: string[] = [];
    for (const file of sourceFiles(MODULES)) {
      const rel = path.relative(MODULES, file).split(path.sep).join("/");
      if (isStoreFile(rel) || NOT_YET_IN_STORES.includes(rel)) continue;
      for (const line of dialectLines(readFileSync(file, "utf8"))) found.push(`${rel}:${line}`);
    }
    expect(found, 'move it into the module\'s store (docs/platform.md, "Where SQL lives")').toEqual([]);
  });

  it("each file not yet moved still does dialect work (a moved one leaves the list)", () => {
    for (const rel of NOT_YET_IN_STORES) {
      const text = readFileSync(path.join(MODULES, rel), "utf8");
      expect(dialectLines(text), rel).not.toEqual([]);
    }
  });

  it("knows store files and the shapes it refuses", () => {
    expect(
      [
        "email/store.ts",
        "event-store/store/sqlite.ts",
        "event-store/claims/claims-store.ts",
        "analytics/engine/client.ts",
        "event-store/sessions/sessions.ts",
        "email/records.ts",
        "events/restore.ts",
      ].map(isStoreFile),
    ).toEqual([true, true, true, true, false, false, false]);
    const sample = [
      "const rows = isPostgresDb(db) ? a : b;",
      "if (isPostgres(dialect)) return;",
      "const raw = handle.sqlite;",
      'const stmt = sqlite.prepare("select 1");',
      "const { db, sqlite } = handle;",
      'const st = preparedOn(raw, "select 1");',
      "const conn: SQLite.Database = open();", // a type: fine
      'await db.selectFrom("events").selectAll().execute();', // portable: fine
    ].join("\n");
    expect(dialectLines(sample).map((l) => Number(l.split(":")[0]))).toEqual([1, 2, 3, 4, 5, 6]);
  });
});
