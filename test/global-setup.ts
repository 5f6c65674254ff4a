import pg from "pg";
import { isPostgres } from "../src/config.js";
import { ensureWebBuilt } from "../web/tools/ensure-built.js";

/** Each test file's PostgreSQL schema starts with this prefix, naming the vitest main process. */
export const testSchemaPrefix = (mainPid: number) => `t_${mainPid}_`;

/**
 * Before the run: builds the dashboard when web/dist is missing or older than web/ (the browser
 * and serving tests need it; a fresh clone's `npm test` builds it once). After the whole run:
 * drops the PostgreSQL schemas its test files created (none on SQLite).
 */
export default async function setup() {
  await ensureWebBuilt();
  return async function teardown() {
    const url = process.env.DATABASE_URL;
    if (!isPostgres({ databaseUrl: url })) return;
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const { rows } = await c.query<{ nspname: string }>(
        // A prefix match, not LIKE: "_" is LIKE's any-character, so run 726's `t_726_%` also
        // matched run 7263's schemas and dropped them under a concurrent run's tests.
        "SELECT nspname FROM pg_namespace WHERE left(nspname, length($1)) = $1",
        [testSchemaPrefix(process.pid)],
      );
      for (const r of rows) await c.query(`DROP SCHEMA IF EXISTS "${r.nspname}" CASCADE`);
    } finally {
      await c.end();
    }
  };
}
