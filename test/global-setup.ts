import pg from "pg";
import { isPostgres } from "../src/config.js";

/** Each test file's PostgreSQL schema starts with this prefix, naming the vitest main process. */
export const testSchemaPrefix = (mainPid: number) => `t_${mainPid}_`;

/** After the whole run, drops the PostgreSQL schemas its test files created (none on SQLite). */
export default function setup() {
  return async function teardown() {
    const url = process.env.DATABASE_URL;
    if (!isPostgres({ databaseUrl: url })) return;
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const { rows } = await c.query<{ nspname: string }>(
        "SELECT nspname FROM pg_namespace WHERE nspname LIKE $1",
        [`${testSchemaPrefix(process.pid)}%`],
      );
      for (const r of rows) await c.query(`DROP SCHEMA IF EXISTS "${r.nspname}" CASCADE`);
    } finally {
      await c.end();
    }
  };
}
