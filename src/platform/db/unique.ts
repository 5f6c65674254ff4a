/**
 * Whether a database error is a unique-index violation (SQLite's SQLITE_CONSTRAINT_UNIQUE or
 * _PRIMARYKEY, PostgreSQL's 23505): the loser of a race between a uniqueness check and its insert.
 */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
}
