import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../../test/helpers/app.js";

let low: TestApp;
let dflt: TestApp;
beforeAll(async () => {
  low = await startTestApp({ rateLimits: { events: 5, reads: 200, writes: 100 } });
  dflt = await startTestApp();
});
afterAll(async () => {
  await low.close();
  await dflt.close();
});

const URL_ = "https://shop.example.com/";

describe("POST /api/events rate limit (per project key)", () => {
  it("counts a batch as one request, then answers 429 with Retry-After", async () => {
    const a = await low.tenant();
    const batch = {
      projectKey: a.publicKey,
      visitorId: "v",
      events: Array.from({ length: 50 }, () => ({ type: "x", url: URL_ })),
    };
    for (let i = 0; i < 5; i++) {
      const res = await a.post("/api/events", batch, { as: "none" });
      expect(res.status).toBe(200);
      expect(res.body.received).toBe(50);
    }
    const over = await a.post("/api/events", batch, { as: "none" });
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ code: "RATE_LIMITED", status: 429 });
    expect(Number(over.headers["retry-after"])).toBeGreaterThan(0);
    const stored = await low.app.db
      .selectFrom("events")
      .select("id")
      .where("project_id", "=", a.projectId)
      .execute();
    expect(stored).toHaveLength(250);
  });

  it("keeps separate counters per project key", async () => {
    const a = await low.tenant();
    const b = await low.tenant();
    const ev = (key: string) => ({ type: "x", url: URL_, visitorId: "v", projectKey: key });
    for (let i = 0; i < 5; i++)
      expect((await a.post("/api/events", ev(a.publicKey), { as: "none" })).status).toBe(200);
    expect((await a.post("/api/events", ev(a.publicKey), { as: "none" })).status).toBe(429);
    expect((await b.post("/api/events", ev(b.publicKey), { as: "none" })).status).toBe(200);
  });

  it("defaults to 1000 requests per minute", async () => {
    const a = await dflt.tenant();
    const res = await a.post(
      "/api/events",
      { type: "x", url: URL_, visitorId: "v", projectKey: a.publicKey },
      { as: "none" },
    );
    expect(res.status).toBe(200);
    expect(dflt.config.rateLimits.events).toBe(1000);
    expect(res.headers["x-ratelimit-limit"]).toBe("1000");
    expect(res.headers["x-ratelimit-remaining"]).toBe("999");
  });
});
