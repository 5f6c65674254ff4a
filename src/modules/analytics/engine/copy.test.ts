import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../../test/helpers/app.js";
import { committedEventsAfter, lateEventIds } from "../../event-store/service.js";

/**
 * The copy's feed across rows that commit after a sync read past their receipt time. On PostgreSQL
 * the cursor is the last (receipt time, id) taken, and rows received up to it are looked for again
 * (rows committed behind it); a row received in the cursor's own millisecond with a greater id is
 * after the cursor, and is taken once, by the next page, not also as a late row (a row committed
 * between a sync's page and its look for late rows was taken twice).
 */
let t: TestApp;
let a: Tenant;
beforeAll(async () => {
  t = await startTestApp({
    rateLimits: { events: 0, reads: 0, writes: 0 },
    engine: { memoryMb: 256, threads: 1, pollMs: 3_600_000, catchUpEvents: 1_000_000 },
  });
  a = await t.tenant();
});
afterAll(async () => t.close());

const total = async () => {
  const res = await a.post("/api/analytics/trends", {
    period: "7d",
    series: [{ event: "signup", measure: "total" }],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.series[0].total as number;
};

describe("the engine's copy of rows committed in the cursor's millisecond", () => {
  it("holds a row received in the same millisecond as the last taken, with a greater id, once", async () => {
    const res = await a.post(
      "/api/events",
      { projectKey: a.apiKey, type: "signup", visitorId: "v1", url: "https://shop.example/" },
      { as: "none" },
    );
    expect(res.status).toBeLessThan(300);
    expect(await total()).toBe(1);
    const db = t.app.db;
    const page = await committedEventsAfter(db, {}, 10);
    expect(page.rows).toHaveLength(1);
    const first = page.rows[0]!;

    // Another process's row: the same receipt time, a greater id, committed after the read above.
    const [stored] = (await sql<Record<string, unknown>>`select * from events`.execute(db)).rows;
    const { seq: _seq, ...row } = stored!;
    const later = `${first.id}z`;
    await db
      .insertInto("events")
      .values({ ...row, id: later } as never)
      .execute();

    // It is after the cursor: the next page's, not a late row behind it.
    expect(await lateEventIds(db, page.next)).not.toContain(later);
    expect((await committedEventsAfter(db, page.next, 10)).rows.map((r) => r.id)).toEqual([later]);
    // Each report syncs the copy first: the row is taken once, however often it syncs.
    expect(await total()).toBe(2);
    expect(await total()).toBe(2);
  });
});
