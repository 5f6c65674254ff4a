import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { BROWSER_UA } from "../analytics/analytics.testing.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
});
afterAll(async () => t.close());

const send = async (a: Tenant, body: Record<string, unknown>, ua = BROWSER_UA) => {
  const res = await a.post(
    "/api/events",
    { projectKey: a.publicKey, ...body },
    { as: "none", headers: { "user-agent": ua } },
  );
  expect(res.status).toBe(200);
};

describe("GET /api/events/recent", () => {
  it("lists the project's newest events first, with bots included and flagged", async () => {
    const a = await t.tenant();
    await send(a, { type: "pageview", visitorId: "v1", url: "https://shop.example.com/a" });
    await send(a, {
      type: "signup",
      visitorId: "v1",
      url: "https://shop.example.com/b",
      data: { plan: "pro" },
      timestamp: "2025-01-02T03:04:05.000Z",
    });
    await send(
      a,
      { type: "pageview", visitorId: "crawler", url: "https://shop.example.com/c" },
      "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    );
    const other = await t.tenant();
    await send(other, { type: "pageview", visitorId: "x", url: "https://other.example.com/" });

    const res = await a.get("/api/events/recent");
    expect(res.status).toBe(200);
    // newest received first, whatever the event's own timestamp
    expect(res.body.map((e: { url: string }) => e.url)).toEqual([
      "https://shop.example.com/c",
      "https://shop.example.com/b",
      "https://shop.example.com/a",
    ]);
    expect(res.body[0]).toMatchObject({ visitorId: "crawler", isBot: true, type: "pageview" });
    expect(res.body[1]).toMatchObject({
      type: "signup",
      visitorId: "v1",
      data: { plan: "pro" },
      timestamp: "2025-01-02T03:04:05.000Z",
      isBot: false,
      channel: "direct",
      leadId: null,
    });
    expect(Date.parse(res.body[1].receivedAt)).toBeGreaterThan(Date.parse("2025-01-03"));
    expect(res.body[2].id).toMatch(/^ev/);
    expect(res.body[2].sessionId).toMatch(/^ses_/);

    const limited = await a.get("/api/events/recent?limit=1");
    expect(limited.body).toHaveLength(1);
    expect(limited.body[0].url).toBe("https://shop.example.com/c");
    const session = await a.get("/api/events/recent", { as: "member" });
    expect(session.body).toHaveLength(3);
  });

  it("an empty project lists nothing; 400 on a bad limit; 401 without credentials", async () => {
    const a = await t.tenant();
    expect((await a.get("/api/events/recent")).body).toEqual([]);
    for (const q of ["limit=0", "limit=201", "limit=x"]) {
      const res = await a.get(`/api/events/recent?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
    }
    expect((await a.get("/api/events/recent", { as: "none" })).status).toBe(401);
  });

  it("default 50, at most 200", async () => {
    const a = await t.tenant();
    const events = Array.from({ length: 210 }, (_, i) => ({
      type: "tick",
      url: `https://s.example.com/${i}`,
    }));
    // A server's batch: a page's (the public key's) holds at most 100 events.
    await send(a, { projectKey: a.apiKey, visitorId: "v", events });
    expect((await a.get("/api/events/recent")).body).toHaveLength(50);
    const max = await a.get("/api/events/recent?limit=200");
    expect(max.body).toHaveLength(200);
    expect(max.body[0].url).toBe("https://s.example.com/209");
  });
});

describe("GET /api/events/status", () => {
  it("says whether the project has any event: false when empty, true from its first (a bot's too)", async () => {
    const a = await t.tenant();
    const other = await t.tenant();
    await send(other, { type: "pageview", visitorId: "o", url: "https://other.example.com/" });
    expect((await a.get("/api/events/status")).body).toEqual({ hasEvents: false });
    expect((await a.get("/api/events/status", { as: "member" })).body).toEqual({ hasEvents: false });
    await send(
      a,
      { type: "pageview", visitorId: "crawler", url: "https://shop.example.com/" },
      "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    );
    expect((await a.get("/api/events/status")).body).toEqual({ hasEvents: true });
    expect((await a.get("/api/events/status", { as: "none" })).status).toBe(401);
  });
});
