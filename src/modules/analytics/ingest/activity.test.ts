import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, startTestApp } from "../../../../test/helpers/app.js";
import { withTransaction } from "../../../platform/db/index.js";
import { commitEvents, committed } from "../analytics.testing.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const rowsOf = (projectId: string) =>
  t.app.db
    .selectFrom("analytics_activity")
    .select(["visitor_id", "type", "day"])
    .where("project_id", "=", projectId)
    .orderBy("visitor_id")
    .orderBy("type")
    .execute();

describe("analytics_activity (retention's input)", () => {
  it("a row per visitor, day and type; bots and anonymous server events left out; repeats not written", async () => {
    const a = await t.tenant();
    const ts = Date.UTC(2026, 10, 20, 12);
    await commitEvents(t.app, [
      committed(a, { visitorId: "v1", timestamp: ts }),
      committed(a, { visitorId: "v1", timestamp: ts + 60_000 }),
      committed(a, { visitorId: "v1", type: "signup", timestamp: ts + 120_000 }),
      committed(a, { visitorId: "bot", isBot: true, timestamp: ts }),
      committed(a, { visitorId: "", origin: "server", type: "$revenue", timestamp: ts }),
    ]);
    await commitEvents(t.app, [committed(a, { visitorId: "v1", timestamp: ts + 3_600_000 })]);
    const day = Math.floor(ts / 86_400_000);
    expect((await rowsOf(a.projectId)).map((r) => ({ ...r, day: Number(r.day) }))).toEqual([
      { visitor_id: "v1", type: "pageview", day },
      { visitor_id: "v1", type: "signup", day },
    ]);
  });

  it("a rolled-back flush is not remembered: its events' activity is written when they commit", async () => {
    const a = await t.tenant();
    const event = () => committed(a, { visitorId: "v2", timestamp: Date.now() });
    await expect(
      withTransaction(t.app.db, async (trx) => {
        await t.app.eventBus.process(trx, [event()]);
        throw new Error("the flush fails after the processors ran");
      }),
    ).rejects.toThrow(/flush fails/);
    expect(await rowsOf(a.projectId)).toEqual([]);
    await commitEvents(t.app, [event()]);
    expect(await rowsOf(a.projectId)).toHaveLength(1);
  });
});
