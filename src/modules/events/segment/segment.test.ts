import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, startTestApp, type TestApp } from "../../../../test/helpers/app.js";
import { buildApp } from "../../../app.js";
import { BROWSER_UA, call, mid, storedEvents } from "./segment.testing.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const lead = async (a: Tenant, id: string) => (await a.get(`/api/leads/${id}`)).body;

describe("Segment calls become events of the one pipeline", () => {
  it("track: an event named `event`, properties as data, revenue from total, a server event of the user's lead", async () => {
    const a = await t.tenant();
    const res = await call(a, "/v1/track", {
      userId: "user-1",
      event: "Order Completed",
      properties: { orderId: "o-1", total: 49.5, currency: "eur" },
      messageId: mid(),
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    const [e] = await storedEvents(t, a);
    expect(e).toMatchObject({
      type: "Order Completed",
      visitorId: "lead:user-1",
      leadId: "user-1",
      server: true,
      channel: "unattributed",
      sessionId: "",
      data: { orderId: "o-1", total: 49.5, revenue: 49.5, currency: "EUR" },
    });
    expect((await lead(a, "user-1")).id).toBe("user-1");
  });

  it("track: properties.revenue wins over total; numeric strings count; an anonymous visitor's event", async () => {
    const a = await t.tenant();
    await call(a, "/v1/batch", {
      batch: [
        { type: "track", anonymousId: "anon-1", event: "A", properties: { revenue: 10, total: 99 } },
        { type: "track", anonymousId: "anon-1", event: "B", properties: { revenue: "12.50" } },
        { type: "track", anonymousId: "anon-1", event: "C" },
      ],
    });
    const events = await storedEvents(t, a);
    expect(events.map((e) => [e.type, e.visitorId, e.leadId, e.data.revenue])).toEqual([
      ["A", "anon-1", null, 10],
      ["B", "anon-1", null, 12.5],
      ["C", "anon-1", null, undefined],
    ]);
  });

  it("page: a web visit with session, channel from context.page's UTM tags, referrer, title; a crawler is flagged", async () => {
    const a = await t.tenant();
    const url = "https://shop.example.com/pricing?utm_source=google&utm_medium=cpc&utm_campaign=spring";
    await call(a, "/v1/page", {
      anonymousId: "anon-p",
      name: "Pricing",
      properties: { path: "/pricing" },
      context: {
        page: { url, referrer: "https://www.google.com/", title: "Pricing · Shop" },
        userAgent: BROWSER_UA,
      },
      messageId: mid(),
    });
    await call(a, "/v1/page", {
      anonymousId: "crawler",
      context: {
        page: { url },
        userAgent: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
      },
    });
    const [page, bot] = await storedEvents(t, a);
    expect(page).toMatchObject({
      type: "pageview",
      visitorId: "anon-p",
      url,
      referrer: "https://www.google.com/",
      server: false,
      channel: "paid_search",
      source: "google",
      isBot: false,
      data: { path: "/pricing", name: "Pricing", title: "Pricing · Shop" },
    });
    expect(page!.sessionId).not.toBe("");
    expect(bot).toMatchObject({ visitorId: "crawler", isBot: true });
    const journey = (await a.get("/api/identity?visitorId=anon-p")).body;
    expect(journey.attribution).toMatchObject({ channel: "paid_search", source: "google" });
  });

  it("page sent from a server: context.campaign becomes the URL's UTM tags, so the channel holds", async () => {
    const a = await t.tenant();
    await call(a, "/v1/page", {
      userId: "user-srv",
      context: {
        page: { url: "https://shop.example.com/landing" },
        campaign: { name: "launch", source: "newsletter", medium: "email" },
      },
    });
    const [e] = await storedEvents(t, a);
    expect(e).toMatchObject({
      visitorId: "lead:user-srv",
      leadId: "user-srv",
      server: false,
      channel: "email",
    });
    expect(e!.url).toBe(
      "https://shop.example.com/landing?utm_campaign=launch&utm_source=newsletter&utm_medium=email",
    );
    expect((await lead(a, "user-srv")).attribution.channel).toBe("email");
  });

  it("screen: a screen view ($screen) with its name, a visit like a pageview", async () => {
    const a = await t.tenant();
    await call(a, "/v1/screen", { anonymousId: "app-1", name: "Home", properties: { tab: 2 } });
    const [e] = await storedEvents(t, a);
    expect(e).toMatchObject({
      type: "$screen",
      visitorId: "app-1",
      server: false,
      data: { tab: 2, name: "Home" },
    });
    expect(e!.sessionId).not.toBe("");
  });

  it("identify: links anonymousId to the lead (created when new); a secret key's traits overwrite", async () => {
    const a = await t.tenant();
    await call(a, "/v1/page", {
      anonymousId: "anon-i",
      context: { page: { url: "https://shop.example.com/" } },
    });
    await call(a, "/v1/identify", {
      userId: "user-i",
      anonymousId: "anon-i",
      traits: { plan: "free", seats: 1 },
    });
    await call(a, "/v1/identify", { userId: "user-i", traits: { plan: "pro" } });
    const l = await lead(a, "user-i");
    expect(l.properties).toEqual({ plan: "pro", seats: 1 });
    expect(l.visitors.map((v: { visitorId: string }) => v.visitorId)).toContain("anon-i");
    expect(l.attribution.channel).toBe("direct");
  });

  it("identify: a public key's traits only fill properties the lead does not have", async () => {
    const a = await t.tenant();
    await call(a, "/v1/identify", { userId: "user-pk", traits: { plan: "pro" } });
    await call(
      a,
      "/v1/identify",
      { userId: "user-pk", traits: { plan: "free", company: "Acme" } },
      { key: a.publicKey },
    );
    expect((await lead(a, "user-pk")).properties).toEqual({ plan: "pro", company: "Acme" });
  });

  it("alias: the visitor previousId's history joins the lead userId", async () => {
    const a = await t.tenant();
    await call(a, "/v1/page", {
      anonymousId: "old-anon",
      context: { page: { url: "https://shop.example.com/" } },
    });
    await call(a, "/v1/alias", { previousId: "old-anon", userId: "user-a" });
    const l = await lead(a, "user-a");
    expect(l.visitors.map((v: { visitorId: string }) => v.visitorId)).toEqual(["old-anon"]);
    const journey = (await a.get("/api/identity?visitorId=old-anon")).body;
    expect(journey.leadId).toBe("user-a");
    expect(journey.events.map((e: { type: string }) => e.type)).toEqual(["pageview", "$alias"]);
  });

  it("group: traits stored under groups.<groupId>, other groups kept; a public key only fills", async () => {
    const a = await t.tenant();
    await call(a, "/v1/group", { userId: "user-g", groupId: "acme", traits: { name: "Acme", plan: "team" } });
    await call(a, "/v1/group", { userId: "user-g", groupId: 42, traits: { name: "Initech" } });
    await call(a, "/v1/group", { userId: "user-g", groupId: "acme", traits: { plan: "enterprise" } });
    await call(
      a,
      "/v1/group",
      { userId: "user-g", groupId: "acme", traits: { plan: "free", size: 10 } },
      { key: a.publicKey },
    );
    expect((await lead(a, "user-g")).properties).toEqual({
      groups: { acme: { name: "Acme", plan: "enterprise", size: 10 }, "42": { name: "Initech" } },
    });
    const types = (await storedEvents(t, a)).map((e) => e.type);
    expect(types).toEqual(["$group", "$group", "$group", "$group"]);
  });

  it("batch: any mix of calls in one request, each stored as its kind", async () => {
    const a = await t.tenant();
    const res = await call(a, "/v1/batch", {
      batch: [
        { type: "page", anonymousId: "b-1", context: { page: { url: "https://shop.example.com/a" } } },
        { type: "identify", anonymousId: "b-1", userId: "user-b", traits: { email: "b@example.com" } },
        { type: "track", userId: "user-b", event: "Signed Up" },
        { type: "group", userId: "user-b", groupId: "g1", traits: { name: "G" } },
        { type: "screen", anonymousId: "b-2", name: "Settings" },
        { type: "alias", previousId: "b-2", userId: "user-b" },
      ],
    });
    expect(res.status).toBe(200);
    const events = await storedEvents(t, a);
    expect(events.map((e) => e.type).sort()).toEqual(
      ["$alias", "$group", "$identify", "$screen", "Signed Up", "pageview"].sort(),
    );
    const l = await lead(a, "user-b");
    expect(l.properties).toEqual({ email: "b@example.com", groups: { g1: { name: "G" } } });
    expect(l.visitors.map((v: { visitorId: string }) => v.visitorId).sort()).toEqual([
      "b-1",
      "b-2",
      "lead:user-b",
    ]);
  });

  it("analytics.js's short paths with text/plain, writeKey in the body and user agent in the context", async () => {
    const a = await t.tenant();
    const headers = { "content-type": "text/plain", origin: "https://shop.example.com" };
    const messages: [string, Record<string, unknown>][] = [
      [
        "/v1/p",
        { type: "page", anonymousId: "ajs-1", context: { page: { url: "https://shop.example.com/" } } },
      ],
      ["/v1/i", { type: "identify", anonymousId: "ajs-1", userId: "user-ajs" }],
      ["/v1/t", { type: "track", anonymousId: "ajs-1", userId: "user-ajs", event: "Clicked" }],
      ["/v1/s", { type: "screen", anonymousId: "ajs-1" }],
      ["/v1/g", { type: "group", anonymousId: "ajs-1", userId: "user-ajs", groupId: "g" }],
      ["/v1/a", { type: "alias", previousId: "ajs-2", userId: "user-ajs" }],
      ["/v1/b", { batch: [{ type: "track", anonymousId: "ajs-1", event: "Batched" }] }],
    ];
    for (const [path, body] of messages) {
      const res = await call(a, path, JSON.stringify({ ...body, writeKey: a.publicKey }), {
        key: null,
        headers,
      });
      expect(res.status, path).toBe(200);
      expect(res.headers["access-control-allow-origin"], path).toBe("*");
    }
    expect((await storedEvents(t, a)).map((e) => e.type)).toEqual([
      "pageview",
      "$identify",
      "Clicked",
      "$screen",
      "$group",
      "$alias",
      "Batched",
    ]);
  });

  it("accepts gzip bodies", async () => {
    const a = await t.tenant();
    const body = gzipSync(JSON.stringify({ batch: [{ type: "track", userId: "z", event: "Zipped" }] }));
    const res = await call(a, "/v1/batch", body, {
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
    });
    expect(res.status).toBe(200);
    expect((await storedEvents(t, a)).map((e) => e.type)).toEqual(["Zipped"]);
  });

  it("answers a browser's preflight (Authorization is sent cross-origin)", async () => {
    const res = await t.app.inject({
      method: "OPTIONS",
      url: "/v1/t",
      headers: {
        origin: "https://shop.example.com",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization,content-type,x-retry-count",
      },
    });
    expect(res.statusCode).toBeLessThan(300);
    expect(res.headers["access-control-allow-origin"]).toBe("*");
    expect(String(res.headers["access-control-allow-headers"])).toContain("authorization");
  });
});

describe("time", () => {
  it("uses timestamp as given, else corrects originalTimestamp by sentAt against the receipt time", async () => {
    const a = await t.tenant();
    const hour = 3_600_000;
    const before = Date.now();
    // The device's clock is 5 hours ahead: it called 10 s before it sent.
    const sent = before + 5 * hour;
    await call(a, "/v1/batch", {
      sentAt: new Date(sent).toISOString(),
      batch: [
        {
          type: "track",
          userId: "u",
          event: "given",
          timestamp: "2026-01-02T03:04:05.000Z",
          sentAt: new Date(sent).toISOString(),
        },
        {
          type: "track",
          userId: "u",
          event: "batch-sentAt",
          originalTimestamp: new Date(sent - 10_000).toISOString(),
        },
        {
          type: "track",
          userId: "u",
          event: "own-sentAt",
          originalTimestamp: new Date(sent - 30_000).toISOString(),
          sentAt: new Date(sent - 20_000).toISOString(),
        },
        { type: "track", userId: "u", event: "none" },
      ],
    });
    const after = Date.now();
    const ts = Object.fromEntries((await storedEvents(t, a)).map((e) => [e.type, e.ts]));
    expect(ts.given).toBe(Date.parse("2026-01-02T03:04:05.000Z"));
    expect(ts["batch-sentAt"]).toBeGreaterThanOrEqual(before - 10_000);
    expect(ts["batch-sentAt"]).toBeLessThanOrEqual(after - 10_000);
    expect(ts["own-sentAt"]).toBeGreaterThanOrEqual(before - 10_000);
    expect(ts["own-sentAt"]).toBeLessThanOrEqual(after - 10_000);
    expect(ts.none).toBeGreaterThanOrEqual(before);
    expect(ts.none).toBeLessThanOrEqual(after);
  });

  it("without sentAt, originalTimestamp is the time", async () => {
    const a = await t.tenant();
    await call(a, "/v1/track", { userId: "u", event: "x", originalTimestamp: "2026-03-04T05:06:07.000Z" });
    expect((await storedEvents(t, a))[0]!.ts).toBe(Date.parse("2026-03-04T05:06:07.000Z"));
  });
});

describe("exactly once", () => {
  it("the same batch sent twice is stored once; the same messageId twice in one batch once", async () => {
    const a = await t.tenant();
    const id = mid();
    const batch = {
      batch: [
        {
          type: "page",
          anonymousId: "d-1",
          messageId: `${id}-p`,
          context: { page: { url: "https://shop.example.com/" } },
        },
        { type: "track", anonymousId: "d-1", event: "Once", messageId: `${id}-t` },
        { type: "track", anonymousId: "d-1", event: "Once", messageId: `${id}-t` },
        { type: "track", anonymousId: "d-1", event: "No id" },
      ],
    };
    expect((await call(a, "/v1/batch", batch)).status).toBe(200);
    expect((await call(a, "/v1/batch", batch)).status).toBe(200);
    const types = (await storedEvents(t, a)).map((e) => e.type).sort();
    // Messages without a messageId cannot be told apart: each request's is stored.
    expect(types).toEqual(["No id", "No id", "Once", "pageview"]);
  });

  it("two copies at once (a retry racing its original) store one", async () => {
    const a = await t.tenant();
    const body = {
      batch: Array.from({ length: 20 }, (_, i) => ({
        type: "track",
        userId: "r",
        event: "Race",
        messageId: `race-${i}`,
      })),
    };
    const answers = await Promise.all(Array.from({ length: 5 }, () => call(a, "/v1/batch", body)));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(await storedEvents(t, a)).toHaveLength(20);
  });

  it("a messageId is per project", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    const body = { userId: "u", event: "Shared", messageId: "same-id-in-two-projects" };
    await call(a, "/v1/track", body);
    await call(b, "/v1/track", body);
    expect(await storedEvents(t, a)).toHaveLength(1);
    expect(await storedEvents(t, b)).toHaveLength(1);
  });
});

describe("GET /v1/projects/:writeKey/settings", () => {
  it("sends analytics.js to this server's /v1 with the key, and loads nothing else", async () => {
    const a = await t.tenant();
    const res = await t.app.inject({
      url: `/v1/projects/${a.publicKey}/settings`,
      headers: { host: "lift.example.com:8443", origin: "https://shop.example.com" },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBe("*");
    const s = res.json();
    expect(s.integrations).toEqual({
      "Segment.io": expect.objectContaining({
        apiKey: a.publicKey,
        apiHost: "lift.example.com:8443/v1",
        protocol: "http",
      }),
    });
    expect(s).toMatchObject({ remotePlugins: [], enabledMiddleware: {}, metrics: { sampleRate: 0 } });
    const forwarded = {
      host: "internal:3000",
      "x-forwarded-host": "lift.example.com",
      "x-forwarded-proto": "https",
    };
    // The forwarding headers are believed only from a proxy TRUST_PROXY names (off by default).
    const direct = await t.app.inject({ url: `/v1/projects/${a.publicKey}/settings`, headers: forwarded });
    expect(direct.json().integrations["Segment.io"]).toMatchObject({
      apiHost: "internal:3000/v1",
      protocol: "http",
    });
    const behindProxy = await buildApp(
      { ...t.config, trustProxy: true },
      { handle: t.app.dbHandle, logger: false },
    );
    try {
      const proxied = await behindProxy.inject({
        url: `/v1/projects/${a.publicKey}/settings`,
        headers: forwarded,
      });
      expect(proxied.json().integrations["Segment.io"]).toMatchObject({
        apiHost: "lift.example.com/v1",
        protocol: "https",
      });
    } finally {
      await behindProxy.close();
    }
  });
});
