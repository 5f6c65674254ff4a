import { sql } from "kysely";
import { isPostgresDb, type Trx } from "./types.js";

/**
 * Makes the rest of `trx` a critical section across processes, so a check-then-create (first-start
 * bootstrap) runs in one process at a time and the check sees what the previous holder committed.
 * PostgreSQL: a transaction-scoped advisory lock keyed by `name`. SQLite: the database's single
 * write lock, taken now with a write that changes nothing; in WAL mode the transaction's snapshot
 * starts only once the lock is held (busy_timeout waits for the holder to commit).
 */
export async function enterExclusive(trx: Trx, name: string): Promise<void> {
  if (isPostgresDb(trx)) {
    await sql`SELECT pg_advisory_xact_lock(hashtext(${`lift:${name}`}))`.execute(trx);
  } else {
    await sql`UPDATE kysely_migration_lock SET is_locked = is_locked WHERE 1 = 0`.execute(trx);
  }
}
