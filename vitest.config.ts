import { defineConfig } from "vitest/config";

/**
 * `LIFT_TESTS=database` (CI's second pass, on PostgreSQL): only tests whose subject can differ by
 * database. The dashboard and snippet in a browser, and the dashboard's own units, run once (on
 * SQLite): what they call is tested on both databases through the API. So do the tests that read
 * the source tree and docs, not a running app.
 */
const databaseOnly = process.env.LIFT_TESTS === "database";
const sourceTreeTests = [
  "architecture-doc",
  "module-surfaces",
  "module-state",
  "sql-in-stores",
  "structure",
  "stuck-file-reporter",
  "test-helpers",
].map((name) => `test/platform/${name}.test.ts`);

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    exclude: [
      "**/node_modules/**",
      ...(databaseOnly ? ["test/browser/**", "test/web/**", ...sourceTreeTests] : []),
    ],
    globalSetup: ["test/global-setup.ts"],
    reporters: ["default", "./test/stuck-file-reporter.ts"],
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: more parallel files only adds contention.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
