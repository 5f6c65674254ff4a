import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withTransaction } from "../../src/platform/db/index.js";
import { type TestApp, startTestApp } from "../helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const pgError = (code: string) => Object.assign(new Error(`pg error ${code}`), { code });

describe("withTransaction", () => {
  it("retries a deadlock or serialization failure and returns the result", async () => {
    let calls = 0;
    const out = await withTransaction(t.app.db, async () => {
      calls++;
      if (calls === 1) throw pgError("40P01");
      if (calls === 2) throw pgError("40001");
      return "done";
    });
    expect(out).toBe("done");
    expect(calls).toBe(3);
  });

  it("does not retry other errors, and gives up after the attempts", async () => {
    let calls = 0;
    await expect(
      withTransaction(t.app.db, async () => {
        calls++;
        throw pgError("23505");
      }),
    ).rejects.toThrow("23505");
    expect(calls).toBe(1);
    calls = 0;
    await expect(
      withTransaction(
        t.app.db,
        async () => {
          calls++;
          throw pgError("40P01");
        },
        { attempts: 3 },
      ),
    ).rejects.toThrow("40P01");
    expect(calls).toBe(3);
  });

  it("rolls back a failed attempt before retrying", async () => {
    let calls = 0;
    await withTransaction(t.app.db, async (trx) => {
      calls++;
      await trx
        .insertInto("workspaces")
        .values({ id: `ws_tx_${calls}`, name: "x", tier: "free", created_at: new Date().toISOString() })
        .execute();
      if (calls === 1) throw pgError("40P01");
    });
    const rows = await t.app.db
      .selectFrom("workspaces")
      .select("id")
      .where("id", "like", "ws_tx_%")
      .execute();
    expect(rows.map((r) => r.id)).toEqual(["ws_tx_2"]);
  });
});
