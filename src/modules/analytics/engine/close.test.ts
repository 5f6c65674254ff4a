import { describe, expect, it } from "vitest";
import { startTestApp } from "../../../../test/helpers/app.js";

/**
 * Closing while the engine runs a query (a report the read pool gave up on, a shutdown mid-answer):
 * the query is stopped and the process lives on. Closing DuckDB under a running query aborted the
 * whole process from a native thread.
 */
describe("closing the analytics engine", () => {
  it("stops a running query and closes, without taking the process down", async () => {
    const t = await startTestApp();
    const long = t.app.deps.engine
      .query("select count(*) n from range(20000000000) a where a.range % 7 = 3", [])
      .then(
        () => "answered",
        (err: Error) => `refused: ${err.message}`,
      );
    // The query is running on the engine's thread (it takes minutes), then the app closes.
    await new Promise((r) => setTimeout(r, 1500));
    const started = Date.now();
    await t.close();
    expect(Date.now() - started).toBeLessThan(20_000);
    // Refused, not answered: the query was stopped. Had DuckDB aborted the process, this test's
    // worker would be gone and vitest would report the file as failed.
    expect(await long).toMatch(/^refused: /);
  }, 60_000);
});
