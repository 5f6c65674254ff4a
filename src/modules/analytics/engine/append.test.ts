import { DuckDBInstance } from "@duckdb/node-api";
import { describe, expect, it } from "vitest";
import { insertMissing } from "./append.js";

/**
 * The copy's insert of rows it may hold already (sessions, conversions, goal hits): a held row is
 * not taken twice, also when the search for held rows is bounded below by a time (`atLeast`).
 */
describe("inserting the rows the copy does not hold yet", () => {
  it("holds a session once when its start moved earlier since it was copied, and takes new ones", async () => {
    const duck = await (await DuckDBInstance.create(":memory:")).connect();
    await duck.run("create table sessions (project_id varchar, session_id varchar, ts bigint)");
    // Row groups of their own far apart in time, so the bound can skip the older ones.
    await duck.run("insert into sessions select 'p', 'old' || i, i from range(0, 300000) t(i) order by i");
    await duck.run("insert into sessions values ('p', 's1', 1000000)");
    const columns = ["project_id", "session_id", "ts"];
    const kinds = { ts: "bigint" as const };
    const count = async (where = "true") =>
      Number(
        (await duck.runAndReadAll(`select count(*) as n from sessions where ${where}`)).getRowObjectsJS()[0]!
          .n,
      );

    // s1 read again with an earlier start (an earlier event joined it), beside a new session.
    await insertMissing(
      duck,
      "sessions",
      columns,
      ["project_id", "session_id"],
      [
        { project_id: "p", session_id: "s1", ts: 999_000 },
        { project_id: "p", session_id: "s2", ts: 999_500 },
      ],
      kinds,
      "ts",
    );
    expect(await count("session_id = 's1'")).toBe(1);
    expect(await count("session_id = 's2'")).toBe(1);
    // And without the bound, the same.
    await insertMissing(
      duck,
      "sessions",
      columns,
      ["project_id", "session_id"],
      [{ project_id: "p", session_id: "s2", ts: 999_500 }],
      kinds,
    );
    expect(await count("session_id = 's2'")).toBe(1);
    expect(await count()).toBe(300_002);
    duck.closeSync();
  });
});
