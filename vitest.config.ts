import { defineConfig } from "vitest/config";

/**
 * `LIFT_TESTS=database` (CI's second pass, on PostgreSQL): only tests whose subject can differ by
 * database. The dashboard and snippet in a browser, and the dashboard's own units, run once (on
 * SQLite): what they call is tested on both databases through the API.
 */
const databaseOnly = process.env.LIFT_TESTS === "database";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    exclude: ["**/node_modules/**", ...(databaseOnly ? ["test/browser/**", "test/web/**"] : [])],
    globalSetup: ["test/global-setup.ts"],
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: more parallel files only adds contention.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
