import type SQLite from "better-sqlite3";

/**
 * A SQLite connection's prepared statements, by SQL text, for hot paths that run on the raw
 * connection (inside the Kysely transaction on it: better-sqlite3 has one connection), without
 * Kysely's per-call compile and prepare. A statement is compiled against its connection and is
 * the same for any caller given the same text, so it belongs to the connection, not to an app:
 * kept beside it here, and gone with it (docs/decisions/platform.md, "Per-app state lives in the
 * dependencies").
 */
const byConnection = new WeakMap<SQLite.Database, Map<string, SQLite.Statement>>();

export function preparedOn(sqlite: SQLite.Database, text: string): SQLite.Statement {
  let m = byConnection.get(sqlite);
  if (!m) {
    m = new Map();
    byConnection.set(sqlite, m);
  }
  let s = m.get(text);
  if (!s) {
    s = sqlite.prepare(text);
    m.set(text, s);
  }
  return s;
}
