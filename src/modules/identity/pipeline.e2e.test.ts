import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { upsertLeadByEmail } from "./service.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const DAY = 86_400_000;
// inject's default user agent (lightMyRequest) is a bot to isbot: send a browser's.
const BROWSER =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36";
const track = (a: Tenant, body: Record<string, unknown>) =>
  a.post(
    "/api/events",
    { projectKey: a.publicKey, ...body },
    { as: "none", headers: { "user-agent": BROWSER } },
  );

describe("through POST /api/events", () => {
  it("journey, stitching, summary and attribution follow the ingested events", async () => {
    const a = await t.tenant();
    await a.post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" });
    const t0 = Date.now() - 3 * DAY;
    const first = await track(a, {
      type: "pageview",
      visitorId: "laptop",
      url: "https://shop.example.com/pricing",
      referrer: "https://www.google.com/",
      timestamp: new Date(t0).toISOString(),
    });
    expect(first.status).toBe(200);
    // The phone's visit comes from the snippet (web); its purchase is reported by the shop's server.
    const visit = await track(a, {
      type: "pageview",
      visitorId: "phone",
      url: "https://shop.example.com/?utm_source=newsletter&utm_medium=email",
      timestamp: new Date(t0 + DAY).toISOString(),
    });
    expect(visit.status).toBe(200);
    const batch = await track(a, {
      visitorId: "phone",
      events: [
        {
          type: "purchase",
          url: "https://shop.example.com/thanks",
          data: { revenue: 80 },
          timestamp: new Date(t0 + DAY + 60_000).toISOString(),
        },
      ],
    });
    expect(batch.body).toMatchObject({ received: 1 });
    const bot = await a.post(
      "/api/events",
      { projectKey: a.publicKey, type: "pageview", visitorId: "crawler", url: "https://shop.example.com/" },
      { as: "none", headers: { "user-agent": "Googlebot/2.1 (+http://www.google.com/bot.html)" } },
    );
    expect(bot.status).toBe(200);

    const before = await a.get("/api/identity", { query: { visitorId: "phone" } });
    expect(before.body).toMatchObject({ leadId: null, attribution: { channel: "email" } });
    expect(before.body.events.map((e: { type: string }) => e.type)).toEqual(["pageview", "purchase"]);

    for (const visitorId of ["phone", "laptop"]) {
      const s = await a.post(
        "/api/identity/stitch",
        { projectKey: a.publicKey, visitorId, email: "Buyer@Example.com" },
        { as: "none" },
      );
      expect(s.status).toBe(200);
    }
    const journey = await a.get("/api/identity", { query: { visitorId: "phone" } });
    expect(journey.body.events.map((e: { url: string }) => e.url)).toEqual([
      "https://shop.example.com/pricing",
      "https://shop.example.com/?utm_source=newsletter&utm_medium=email",
      "https://shop.example.com/thanks",
    ]);
    expect(journey.body).toMatchObject({
      firstSeen: new Date(t0).toISOString(),
      attribution: { channel: "organic_search", landingPage: "https://shop.example.com/pricing" },
    });

    const summary = (await a.get("/api/analytics/summary", { query: { period: "7d" } })).body;
    // The phone and the laptop are one buyer: both visitors belong to a person who converted.
    expect(summary).toMatchObject({
      visitors: 2,
      leads: 1,
      conversions: 1,
      convertedVisitors: 2,
      conversionRate: 1,
    });
    const attribution = (await a.get("/api/attribution/summary", { query: { model: "linear" } })).body;
    expect(attribution.channels).toEqual([
      { channel: "email", creditedConversions: 0.5, revenue: 40 },
      { channel: "organic_search", creditedConversions: 0.5, revenue: 40 },
    ]);
  });

  it("a batch userId links its visitor to the existing lead; server events set no first touch", async () => {
    const a = await t.tenant();
    const { lead } = await upsertLeadByEmail(
      t.app.deps,
      { id: a.projectId, workspaceId: a.workspaceId },
      { email: "known@example.com", source: "crm" },
    );
    const res = await track(a, {
      userId: lead.id,
      visitorId: "app-1",
      events: [{ type: "pageview", url: "https://app.example.com/" }],
    });
    expect(res.status).toBe(200);
    const journey = await a.get("/api/identity", { query: { visitorId: "app-1" } });
    expect(journey.body).toMatchObject({
      leadId: lead.id,
      attribution: { channel: null, landingPage: null },
    });
    expect(journey.body.events.map((e: { url: string }) => e.url)).toEqual(["https://app.example.com/"]);
  });
});
