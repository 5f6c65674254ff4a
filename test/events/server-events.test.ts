import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type Tenant, type TestApp } from "../helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const SITE = "https://shop.example";
const BROWSER =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36";
/** User agents of generic HTTP clients, as they send them by default. */
const CLIENTS = {
  curl: "curl/8.5.0",
  node: "node",
  python: "python-requests/2.31.0",
  go: "Go-http-client/1.1",
};
const CRAWLERS = {
  googlebot: "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
  bingbot: "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
  headless:
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0.0.0 Safari/537.36",
  lighthouse:
    "Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36 Chrome-Lighthouse",
};

const post = (a: Tenant, body: Record<string, unknown>, ua: string, key = a.publicKey) =>
  a.post("/api/events", { projectKey: key, ...body }, { as: "none", headers: { "user-agent": ua } });
const summary = async (a: Tenant) =>
  (await a.get("/api/analytics/summary", { query: { period: "7d" } })).body;
const attribution = async (a: Tenant, model = "position_based") =>
  (await a.get("/api/attribution/summary", { query: { model } })).body.channels;
const stored = (a: Tenant) =>
  t.app.db
    .selectFrom("events")
    .selectAll()
    .where("project_id", "=", a.projectId)
    .orderBy("ts")
    .orderBy("id")
    .execute();

describe("snippet-format events: bots are judged by the request's User-Agent", () => {
  for (const [name, ua] of Object.entries(CLIENTS)) {
    it(`${name}'s default User-Agent is not a bot: the event counts as a visitor`, async () => {
      const a = await t.tenant();
      const res = await post(a, { type: "pageview", visitorId: `v-${name}`, url: `${SITE}/a` }, ua, a.apiKey);
      expect(res.status).toBe(200);
      expect(await summary(a)).toMatchObject({ visitors: 1 });
      expect((await stored(a)).map((r) => Number(r.is_bot))).toEqual([0]);
    });
  }

  it("crawlers and headless browsers are stored flagged, left out of analytics, and visible in journeys", async () => {
    const a = await t.tenant();
    for (const [name, ua] of Object.entries(CRAWLERS))
      expect((await post(a, { type: "pageview", visitorId: name, url: `${SITE}/a` }, ua)).status).toBe(200);
    expect(await summary(a)).toMatchObject({ visitors: 0 });
    const rows = await stored(a);
    expect(rows.map((r) => [r.visitor_id, Number(r.is_bot)]).sort()).toEqual(
      Object.keys(CRAWLERS)
        .map((n) => [n, 1])
        .sort(),
    );
    const journey = await a.get("/api/identity", { query: { visitorId: "googlebot" } });
    expect(journey.status).toBe(200);
    expect(journey.body.events).toHaveLength(1);
  });
});

describe("batch-format events are server events", () => {
  it("are not judged by the request's User-Agent: a node server's purchases count as conversions and goals", async () => {
    const a = await t.tenant();
    await a.post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" });
    const goal = await a.post("/api/goals", { metric: "Purchase", target: 10, deadline: "2099-01-01" });
    expect(goal.status).toBe(201);
    for (const ua of [CLIENTS.node, CRAWLERS.googlebot]) {
      const res = await post(
        a,
        { visitorId: "buyer", events: [{ type: "purchase", url: `${SITE}/thanks`, data: { revenue: 20 } }] },
        ua,
        a.apiKey,
      );
      expect(res.body).toEqual({ received: 1, errors: [] });
    }
    expect((await stored(a)).map((r) => Number(r.is_bot))).toEqual([0, 0]);
    expect(await summary(a)).toMatchObject({ conversions: 2 });
    await t.app.worker.drain();
    const goals = (await a.get("/api/goals")).body as { metric: string; current: number }[];
    expect(goals.find((g) => g.metric === "Purchase")?.current).toBe(2);
  });

  it("a forwarded end-user agent (events[i].context.userAgent) flags a crawler's event", async () => {
    const a = await t.tenant();
    await a.post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" });
    const res = await post(
      a,
      {
        visitorId: "v1",
        events: [
          { type: "purchase", url: `${SITE}/t`, context: { userAgent: CRAWLERS.googlebot } },
          { type: "purchase", url: `${SITE}/t`, context: { userAgent: BROWSER } },
          { type: "purchase", url: `${SITE}/t`, context: { userAgent: 42 } },
        ],
      },
      CLIENTS.node,
    );
    expect(res.body).toEqual({
      received: 2,
      errors: [
        { index: 2, code: "VALIDATION_ERROR", message: "events[2].context.userAgent must be a string" },
      ],
    });
    expect((await stored(a)).map((r) => Number(r.is_bot)).sort()).toEqual([0, 1]);
    expect(await summary(a)).toMatchObject({ conversions: 1 });
  });

  it("count an experiment's exposures and conversions sent by a server SDK", async () => {
    const a = await t.tenant();
    await a.post("/api/conversion-goals", { name: "Signup", eventType: "signup" });
    const e = (
      await a.post("/api/experiments", {
        name: "Pricing",
        targetUrl: "/pricing",
        variants: [{ name: "control" }, { name: "b" }],
      })
    ).body;
    await a.patch("/api/experiments", { id: e.id, status: "running" });
    const res = await post(
      a,
      {
        visitorId: "v1",
        events: [
          { type: "$exposure", url: `${SITE}/pricing`, data: { experimentId: e.id, variant: "b" } },
          { type: "signup", url: `${SITE}/signup` },
        ],
      },
      CLIENTS.go,
      a.apiKey,
    );
    expect(res.status).toBe(200);
    const got = (await a.get(`/api/experiments/${e.id}`)).body;
    expect(
      got.results.variants.map((v: { exposures: number; conversions: number }) => [
        v.exposures,
        v.conversions,
      ]),
    ).toEqual([
      [0, 0],
      [1, 1],
    ]);
  });

  it("accept the spec's shape (no visitorId, no userId) as anonymous server events feeding conversions and goals", async () => {
    const a = await t.tenant();
    await a.post("/api/conversion-goals", { name: "Signup", eventType: "signup" });
    await a.post("/api/goals", { metric: "Signup", target: 10, deadline: "2099-01-01" });
    const res = await post(
      a,
      {
        events: [
          { type: "pageview", url: `${SITE}/a` },
          {
            type: "signup",
            url: `${SITE}/signup`,
            data: { plan: "pro" },
            timestamp: new Date().toISOString(),
          },
        ],
      },
      CLIENTS.curl,
      a.apiKey,
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: 2, errors: [] });
    expect((await stored(a)).map((r) => [r.type, r.visitor_id, Number(r.is_server)]).sort()).toEqual([
      ["pageview", "", 1],
      ["signup", "", 1],
    ]);
    expect(await summary(a)).toMatchObject({ visitors: 0, conversions: 1 });
    expect(await attribution(a)).toEqual([{ channel: "unattributed", creditedConversions: 1, revenue: 0 }]);
    await t.app.worker.drain();
    const goals = (await a.get("/api/goals")).body as { metric: string; current: number }[];
    expect(goals.find((g) => g.metric === "Signup")?.current).toBe(1);
    const touchpoints = await t.app.db
      .selectFrom("analytics_touchpoints")
      .select("session_id")
      .where("project_id", "=", a.projectId)
      .execute();
    expect(touchpoints).toEqual([]);
  });

  it("of a known web visitor join its journey without starting a session or moving its first touch", async () => {
    const a = await t.tenant();
    await a.post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" });
    const t0 = Date.now() - 3 * 3_600_000;
    await post(
      a,
      {
        type: "pageview",
        visitorId: "web1",
        url: `${SITE}/pricing`,
        referrer: "https://www.google.com/",
        timestamp: new Date(t0).toISOString(),
      },
      BROWSER,
    );
    // Two hours later, past the session gap: a web event would start a new (direct) session.
    const res = await post(
      a,
      {
        visitorId: "web1",
        events: [
          {
            type: "purchase",
            url: `${SITE}/api/checkout`,
            data: { revenue: 30 },
            timestamp: new Date(t0 + 2 * 3_600_000).toISOString(),
          },
        ],
      },
      CLIENTS.node,
      a.apiKey,
    );
    expect(res.status).toBe(200);
    const journey = (await a.get("/api/identity", { query: { visitorId: "web1" } })).body;
    expect(journey.events.map((e: { type: string }) => e.type)).toEqual(["pageview", "purchase"]);
    expect(journey.attribution).toEqual({
      channel: "organic_search",
      source: "google",
      landingPage: `${SITE}/pricing`,
    });
    expect(await attribution(a, "last_touch")).toEqual([
      { channel: "organic_search", creditedConversions: 1, revenue: 30 },
    ]);
    expect(await summary(a)).toMatchObject({
      visitors: 1,
      conversions: 1,
      topChannels: [{ channel: "organic_search", visitors: 1, conversions: 1 }],
    });
  });
});

describe("revenue without a web visit", () => {
  it("is credited to `unattributed`, and the lead keeps an empty first touch", async () => {
    const a = await t.tenant();
    // Stripe-like: a server reports a payment of a customer who never visited the site.
    const res = await post(
      a,
      {
        userId: "cus_123",
        events: [{ type: "$revenue", url: `${SITE}/billing`, data: { revenue: 49, currency: "USD" } }],
      },
      "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
      a.apiKey,
    );
    expect(res.status).toBe(200);
    for (const model of ["first_touch", "last_touch", "linear", "position_based"])
      expect(await attribution(a, model)).toEqual([
        { channel: "unattributed", creditedConversions: 1, revenue: 49 },
      ]);
    expect(await summary(a)).toMatchObject({
      visitors: 0,
      leads: 1,
      conversions: 1,
      topChannels: [{ channel: "unattributed", visitors: 0, conversions: 1 }],
    });
    const journey = (await a.get("/api/identity", { query: { visitorId: "lead:cus_123" } })).body;
    expect(journey).toMatchObject({
      leadId: "cus_123",
      attribution: { channel: null, source: null, landingPage: null },
    });
    expect(journey.events.map((e: { type: string }) => e.type)).toEqual(["$revenue"]);
  });

  it("moves from `unattributed` to the web channel when the visitor who came before is linked later", async () => {
    const a = await t.tenant();
    const visit = Date.now() - 86_400_000;
    await post(
      a,
      {
        type: "pageview",
        visitorId: "web9",
        url: `${SITE}/`,
        referrer: "https://www.google.com/",
        timestamp: new Date(visit).toISOString(),
      },
      BROWSER,
    );
    await post(
      a,
      { userId: "cus_9", events: [{ type: "$revenue", url: `${SITE}/billing`, data: { revenue: 25 } }] },
      CLIENTS.node,
      a.apiKey,
    );
    expect(await attribution(a)).toEqual([{ channel: "unattributed", creditedConversions: 1, revenue: 25 }]);
    expect((await a.post("/api/identity", { visitorId: "web9", leadId: "cus_9" })).status).toBe(200);
    expect(await attribution(a)).toEqual([
      { channel: "organic_search", creditedConversions: 1, revenue: 25 },
    ]);
  });

  it("of a lead that came from the web is credited to the lead's web touches", async () => {
    const a = await t.tenant();
    await post(
      a,
      { type: "pageview", visitorId: "web1", url: `${SITE}/?utm_source=news&utm_medium=email` },
      BROWSER,
    );
    expect((await a.post("/api/identity", { visitorId: "web1", leadId: "user_7" })).status).toBe(200);
    const res = await post(
      a,
      { userId: "user_7", events: [{ type: "$revenue", url: `${SITE}/billing`, data: { revenue: 10 } }] },
      CLIENTS.python,
      a.apiKey,
    );
    expect(res.status).toBe(200);
    expect(await attribution(a)).toEqual([{ channel: "email", creditedConversions: 1, revenue: 10 }]);
  });
});
