import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";

/**
 * DATA_DIR holds the database, the generated secret key and the mail outbox (verification codes,
 * reset links): only the server's own user may read it. Existing folders and files are narrowed
 * too, so an install from before this rule is private after its next start.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

/** Creates `file` (0600) if missing, else narrows it to 0600; for files another library creates (SQLite's). */
export function ensurePrivateFile(file: string): void {
  if (existsSync(file)) chmodSync(file, 0o600);
  else closeSync(openSync(file, "a", 0o600));
}

/** Narrows files that exist to 0600 (a database's -wal and -shm from an earlier start). */
export function narrowIfPresent(...files: string[]): void {
  for (const f of files) if (existsSync(f)) chmodSync(f, 0o600);
}
