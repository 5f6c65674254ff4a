import type SQLite from "better-sqlite3";

/**
 * Prepared statements per SQLite connection, for processors' hot paths: they run on the
 * connection under the events writer's Kysely transaction (better-sqlite3 has one connection),
 * so they are part of that transaction, without Kysely's per-call compile and prepare.
 */
const cache = new WeakMap<SQLite.Database, Map<string, SQLite.Statement>>();

export function statement(db: SQLite.Database, text: string): SQLite.Statement {
  let m = cache.get(db);
  if (!m) {
    m = new Map();
    cache.set(db, m);
  }
  let s = m.get(text);
  if (!s) {
    s = db.prepare(text);
    m.set(text, s);
  }
  return s;
}
