import fc from "fast-check";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, startTestApp } from "../../../../test/helpers/app.js";
import { isPostgresDb } from "../../../platform/db/index.js";
import { conditionSql, parseFilter, testValue } from "./filter.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

// ASCII with the characters LIKE and the glob treat specially, in both cases.
const text = fc.string({ unit: fc.constantFrom("a", "A", "b", "%", "_", "\\", "*", "/", " "), maxLength: 6 });
const OPS = ["is", "is_not", "contains", "not_contains", "matches", "set", "not_set"] as const;

describe("a condition judges a value in SQL as in JS (both dialects)", () => {
  it("for every text operator, over values with %, _, \\ and * in either case", async () => {
    const postgres = isPostgresDb(t.app.db);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...OPS),
        text,
        fc.option(text, { nil: null }),
        async (op, v, value) => {
          const [c] = parseFilter([
            { key: "source", op, ...(op === "set" || op === "not_set" ? {} : { value: v }) },
          ]);
          const expr = sql<string | null>`cast(${value} as text)`;
          const { rows } = await sql<{
            r: boolean | number;
          }>`select (case when ${conditionSql(c!, expr, null, postgres)} then 1 else 0 end) as r`.execute(
            t.app.db,
          );
          expect(Number(rows[0]!.r) === 1).toBe(testValue(c!, value));
        },
      ),
      { numRuns: 300 },
    );
  });
});
