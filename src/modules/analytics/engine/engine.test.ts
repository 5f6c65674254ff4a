import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER_UA, type Tenant, type TestApp, startTestApp } from "../../../../test/helpers/app.js";

/**
 * The analytics engine's copy: every committed event once, a report's query seeing what was
 * committed before it, the sessions and links reports join, erasure, and a rebuild equal to the
 * copy kept as events came.
 */
let t: TestApp;
let a: Tenant;
beforeAll(async () => {
  t = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
  a = await t.tenant();
});
afterAll(async () => t.close());

const SHOP = "https://shop.example.com";
const pageview = (visitorId: string, path: string, extra: Record<string, unknown> = {}) =>
  a.post(
    "/api/events",
    { projectKey: a.publicKey, type: "pageview", visitorId, url: `${SHOP}${path}`, ...extra },
    { as: "none", headers: { "user-agent": BROWSER_UA } },
  );
const count = async (sql: string, params: unknown[] = []) =>
  Number((await t.app.deps.engine.query<{ n: number }>(sql, params))[0]!.n);

describe("the analytics engine's copy", () => {
  it("holds every committed event once, and a query sees what was committed before it", async () => {
    for (let i = 0; i < 20; i++) expect((await pageview(`v${i % 5}`, `/p/${i}`)).status).toBe(200);
    expect(await count("select count(*) n from events where project_id = $1", [a.projectId])).toBe(20);
    // committed just now: the next query sees it, without waiting for a poll
    expect((await pageview("v9", "/late", { referrer: "https://www.google.com/" })).status).toBe(200);
    expect(await count("select count(*) n from events where project_id = $1", [a.projectId])).toBe(21);
    expect(await count("select count(distinct id) n from events where project_id = $1", [a.projectId])).toBe(
      21,
    );
    const [session] = await t.app.deps.engine.query<{ channel: string; device: string }>(
      "select channel, device from sessions where project_id = $1 and visitor_id = 'v9'",
      [a.projectId],
    );
    expect(session).toEqual({ channel: "organic_search", device: "desktop" });
  });

  it("takes links, and lets an erased person go", async () => {
    expect((await a.post("/api/identity", { visitorId: "v1", leadId: "L1" })).status).toBeLessThan(300);
    const links = await t.app.deps.engine.query(
      "select visitor_id, lead_id from links where project_id = $1",
      [a.projectId],
    );
    expect(links).toEqual([{ visitor_id: "v1", lead_id: "L1" }]);
    expect((await a.del("/api/identity?visitorId=v2")).status).toBe(200);
    expect(
      await count("select count(*) n from events where project_id = $1 and visitor_id = 'v2'", [a.projectId]),
    ).toBe(0);
    expect(
      await count("select count(*) n from sessions where project_id = $1 and visitor_id = 'v2'", [
        a.projectId,
      ]),
    ).toBe(0);
  });

  it("holds the conversions and goal hits analytics holds, through a recount, an edit, a deletion and an erasure", async () => {
    const b = await t.tenant();
    const track = (visitorId: string, type: string, data: Record<string, unknown> = {}) =>
      b.post(
        "/api/events",
        { projectKey: b.publicKey, type, visitorId, url: `${SHOP}/`, data },
        { as: "none", headers: { "user-agent": BROWSER_UA } },
      );
    for (let i = 0; i < 6; i++) {
      expect((await track(`w${i}`, "signup")).status).toBe(200);
      if (i < 2)
        expect((await track(`w${i}`, "purchase", { revenue: 20 + i, currency: "eur" })).status).toBe(200);
    }
    expect((await track("w5", "$revenue", { revenue: -5 })).status).toBe(200);
    const mirror = async () => {
      const store = {
        conversions: await t.app.db
          .selectFrom("analytics_conversions")
          .select(["event_id", "goal_id", "revenue", "counted", "currency"])
          .where("project_id", "=", b.projectId)
          .orderBy("event_id")
          .execute(),
        hits: await t.app.db
          .selectFrom("analytics_goal_hits")
          .select(["goal_key", "event_id"])
          .where("project_id", "=", b.projectId)
          .orderBy("goal_key")
          .orderBy("event_id")
          .execute(),
      };
      const engine = {
        conversions: await t.app.deps.engine.query(
          "select event_id, goal_id, revenue, counted, currency from conversions where project_id = $1 order by event_id",
          [b.projectId],
        ),
        hits: await t.app.deps.engine.query(
          "select goal_key, event_id from goal_hits where project_id = $1 order by goal_key, event_id",
          [b.projectId],
        ),
      };
      const plain = (rows: Record<string, unknown>[]) =>
        rows.map((r) =>
          Object.fromEntries(
            Object.entries(r).map(([k, v]) => [k, typeof v === "string" || v === null ? v : Number(v)]),
          ),
        );
      expect(plain(engine.conversions)).toEqual(plain(store.conversions));
      expect(plain(engine.hits)).toEqual(plain(store.hits));
      return store;
    };
    // the $revenue refund is a conversion row (not counted)
    expect((await mirror()).conversions).toHaveLength(1);
    const created = await b.post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" });
    expect(created.status).toBe(201);
    await t.app.worker.drain();
    expect((await mirror()).conversions).toHaveLength(3);
    expect(
      (await b.patch("/api/conversion-goals", { id: created.body.id, eventType: "signup" })).status,
    ).toBe(200);
    await t.app.worker.drain();
    expect((await mirror()).conversions).toHaveLength(7);
    expect((await b.del("/api/identity?visitorId=w0")).status).toBe(200);
    expect((await mirror()).conversions).toHaveLength(6);
    expect((await b.del(`/api/conversion-goals?id=${created.body.id}`)).status).toBe(200);
    await t.app.worker.drain();
    const last = await mirror();
    expect(last.conversions).toHaveLength(1);
    expect(last.hits.filter((h) => h.goal_key === created.body.id)).toHaveLength(0);
  });

  it("a rebuild from scratch gives the copy kept as events came", async () => {
    const before = await t.app.deps.engine.query(
      "select id, visitor_id, type, url, ts, session_id, channel from events where project_id = $1 order by id",
      [a.projectId],
    );
    const progress: number[] = [];
    const engine = t.app.deps.engine as unknown as { rebuild(p: (n: number) => void): Promise<number> };
    const total = await engine.rebuild((n) => progress.push(n));
    expect(total).toBeGreaterThanOrEqual(before.length);
    expect(progress.length).toBeGreaterThan(0);
    const after = await t.app.deps.engine.query(
      "select id, visitor_id, type, url, ts, session_id, channel from events where project_id = $1 order by id",
      [a.projectId],
    );
    expect(after).toEqual(before);
  });
});
