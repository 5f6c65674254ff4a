import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openMigratedSqlite } from "../../../../test/helpers/sqlite.js";
import { SessionTracker } from "./sessions.js";
import { VisitorIndex } from "../store/visitor-index.js";
import { localVisitorStates } from "../store/visitor-states.js";

// SQLite whatever DATABASE_URL says: the tracker's own lookups (PostgreSQL loads in batches instead).
describe("session cache past its capacity", () => {
  let handle: Awaited<ReturnType<typeof openMigratedSqlite>>;
  let index: VisitorIndex;
  beforeAll(async () => {
    handle = await openMigratedSqlite("sessions");
    index = new VisitorIndex(handle.sqlite!, 1000); // the lookups read the index's tail
  });
  afterAll(async () => handle.remove());

  const T0 = Date.parse("2026-03-01T12:00:00Z");
  const URL = "https://shop.example.com/";

  it("an evicted visitor comes back into the same session (reloaded), a late one into a new one", async () => {
    const tracker = new SessionTracker(localVisitorStates(handle.sqlite!, index), 2);
    const flush = async (visitor: string, ts: number) => {
      let sessionId = "";
      await handle.db.transaction().execute(async (trx) => {
        sessionId = tracker.assign("p1", visitor, ts, URL, null).sessionId;
        await tracker.persist(trx);
      });
      tracker.commit();
      return sessionId;
    };
    const first = await flush("x", T0);
    // two other visitors over capacity 2: x is the least recently used and goes
    await flush("y", T0 + 1000);
    await flush("z", T0 + 2000);
    // 10 minutes later: x's state reloads from the table; still its session
    expect(await flush("x", T0 + 10 * 60_000)).toBe(first);
    // after many flushes of others (recency is refreshed only every few flushes), x again
    for (let i = 0; i < 40; i++) await flush(`o${i}`, T0 + 11 * 60_000 + i);
    expect(await flush("x", T0 + 25 * 60_000)).toBe(first);
    // more than 30 minutes after anything stored of x: a new session
    for (let i = 0; i < 3; i++) await flush(`q${i}`, T0 + 31 * 60_000 + i);
    expect(await flush("x", T0 + 61 * 60_000)).not.toBe(first);
  });
});
