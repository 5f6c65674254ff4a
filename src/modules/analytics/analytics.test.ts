import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { upsertLeadByEmail } from "../identity/service.js";
import { DAY, type Scope, commitEvents, committed } from "./analytics.testing.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const scope = (a: Tenant): Scope => ({ projectId: a.projectId, workspaceId: a.workspaceId });
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/**
 * "Now" for the seeded journeys, kept out of the day's last 10 minutes: events a few minutes
 * after a session's start must fall on the same UTC day as the session whatever the clock says
 * (a run at 23:59 put v3b's purchase on the next day).
 */
const seedNow = () => Math.min(Date.now(), Math.floor(Date.now() / DAY) * DAY + DAY - 10 * 60_000);

/**
 * A small journey set (times relative to now):
 *  v1: display -40d (outside the 30-day lookback), organic_search -10d, email -5d, direct -1d,
 *      purchase (revenue 100) in the direct session.
 *  v2: paid_search -2d and a signup in that session.
 *  v3a: referral -20d; v3b: paid_social -3d, $revenue 50 and a refund of -20 in that session;
 *      both stitched to one lead afterwards, so the lead's sessions are the touchpoints.
 *  a bot: a purchase from a bot user agent, left out everywhere.
 */
async function seedJourneys(a: Tenant, now: number) {
  await a.post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" });
  await a.post("/api/conversion-goals", { name: "Signup", eventType: "signup" });
  const s = scope(a);
  const session = (visitorId: string, channel: string, at: number, extra: Record<string, unknown>[] = []) => [
    committed(s, { visitorId, channel, timestamp: at, sessionId: `${visitorId}@${at}` }),
    ...extra.map((e, i) =>
      committed(s, {
        visitorId,
        channel,
        timestamp: at + (i + 1) * 60_000,
        sessionId: `${visitorId}@${at}`,
        ...e,
      }),
    ),
  ];
  await commitEvents(t.app, [
    ...session("v1", "display", now - 40 * DAY),
    ...session("v1", "organic_search", now - 10 * DAY),
    ...session("v1", "email", now - 5 * DAY),
    ...session("v1", "direct", now - DAY, [{ type: "purchase", data: { revenue: 100 } }]),
    ...session("v2", "paid_search", now - 2 * DAY, [{ type: "signup" }]),
    ...session("v3a", "referral", now - 20 * DAY),
    ...session("v3b", "paid_social", now - 3 * DAY, [
      { type: "$revenue", data: { revenue: 50, currency: "EUR" } },
      { type: "$revenue", data: { revenue: -20, currency: "EUR" }, timestamp: now - 2 * DAY },
    ]),
    ...session("bot", "organic_search", now - DAY, [
      { type: "purchase", data: { revenue: 999 }, isBot: true },
    ]).map((e) => ({ ...e, isBot: true })),
  ]);
  for (const visitorId of ["v3a", "v3b"]) {
    const res = await a.post(
      "/api/identity/stitch",
      { projectKey: a.publicKey, visitorId, email: "v3@example.com" },
      { as: "none" },
    );
    expect(res.status).toBe(200);
  }
}

const byChannel = (body: { channels: { channel: string; creditedConversions: number; revenue: number }[] }) =>
  Object.fromEntries(body.channels.map((c) => [c.channel, [c.creditedConversions, c.revenue]]));

describe("GET /api/attribution/summary", () => {
  let a: Tenant;
  const now = seedNow();
  beforeAll(async () => {
    a = await t.tenant();
    await seedJourneys(a, now);
  });
  const get = async (model?: string) => {
    const res = await a.get("/api/attribution/summary", { query: model ? { model } : {} });
    expect(res.status).toBe(200);
    return res.body;
  };

  it("first_touch credits the first session within the lookback, the lead's across its visitors", async () => {
    const body = await get("first_touch");
    expect(body.model).toBe("first_touch");
    expect(byChannel(body)).toEqual({ organic_search: [1, 100], paid_search: [1, 0], referral: [1, 30] });
  });

  it("last_touch", async () => {
    expect(byChannel(await get("last_touch"))).toEqual({
      direct: [1, 100],
      paid_search: [1, 0],
      paid_social: [1, 30],
    });
  });

  it("linear", async () => {
    expect(byChannel(await get("linear"))).toEqual({
      organic_search: [0.333333, 33.333333],
      email: [0.333333, 33.333333],
      direct: [0.333333, 33.333333],
      paid_search: [1, 0],
      referral: [0.5, 15],
      paid_social: [0.5, 15],
    });
  });

  it("position_based is the default: 40/20/40, two touches 50/50, one touch 100%", async () => {
    const body = await get();
    expect(body.model).toBe("position_based");
    expect(byChannel(body)).toEqual({
      organic_search: [0.4, 40],
      email: [0.2, 20],
      direct: [0.4, 40],
      paid_search: [1, 0],
      referral: [0.5, 15],
      paid_social: [0.5, 15],
    });
    expect(body.channels[0].channel).toBe("paid_search");
  });

  it("time_decay halves a touch's weight every 7 days before the conversion", async () => {
    const w = (ageMs: number) => 2 ** (-ageMs / (7 * DAY));
    // v1's purchase is 1 minute into the direct session of -1d.
    const ages = [9 * DAY + 60_000, 4 * DAY + 60_000, 60_000];
    const sum = ages.map(w).reduce((x, y) => x + y, 0);
    // v3: purchase at -3d+1m (touches -20d, -3d); refund at -2d.
    const p = [w(17 * DAY + 60_000), w(60_000)];
    const r = [w(18 * DAY), w(DAY)];
    const body = byChannel(await get("time_decay"));
    expect(body.organic_search![0]).toBeCloseTo(w(ages[0]!) / sum, 5);
    expect(body.email![0]).toBeCloseTo(w(ages[1]!) / sum, 5);
    expect(body.direct![1]).toBeCloseTo((100 * w(ages[2]!)) / sum, 4);
    expect(body.referral![0]).toBeCloseTo(p[0]! / (p[0]! + p[1]!), 5);
    expect(body.referral![1]).toBeCloseTo((50 * p[0]!) / (p[0]! + p[1]!) - (20 * r[0]!) / (r[0]! + r[1]!), 4);
    const credited = Object.values(body).reduce((x, c) => x + c[0]!, 0);
    expect(credited).toBeCloseTo(3, 6);
  });

  it("validates model and period, needs credentials, and shows nothing of another project", async () => {
    expect((await a.get("/api/attribution/summary", { query: { model: "u_shaped" } })).status).toBe(400);
    const bad = await a.get("/api/attribution/summary", { query: { period: "1y" } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: "VALIDATION_ERROR" });
    expect(bad.body.error).toMatch(/period/);
    expect((await a.get("/api/attribution/summary", { as: "none" })).status).toBe(401);
    const b = await t.tenant();
    expect((await b.get("/api/attribution/summary")).body).toEqual({
      goal: null,
      model: "position_based",
      by: "channel",
      channels: [],
      rows: [],
    });
  });
});

describe("GET /api/analytics/summary", () => {
  let a: Tenant;
  const now = seedNow();
  beforeAll(async () => {
    a = await t.tenant();
    await seedJourneys(a, now);
  });

  it("30d by default: distinct visitors across days, conversions without refunds or bots, leads", async () => {
    const res = await a.get("/api/analytics/summary");
    expect(res.status).toBe(200);
    const body = res.body;
    // Every visitor of the period belongs to a person who converted (v1, v2, and lead v3's two
    // visitors): the rate counts visitors on both sides, so 4 of 4.
    expect(body).toMatchObject({
      visitors: 4,
      leads: 1,
      conversions: 3,
      convertedVisitors: 4,
      conversionRate: 1,
    });
    expect(body.period).toEqual({ from: isoDay(now - 29 * DAY), to: isoDay(now) });
    const channels = Object.fromEntries(
      body.topChannels.map((c: any) => [c.channel, [c.visitors, c.conversions]]),
    );
    // Conversions count under the person's first-touch channel (v1 came first from display).
    expect(channels).toEqual({
      organic_search: [1, 0],
      email: [1, 0],
      direct: [1, 0],
      paid_search: [1, 1],
      referral: [1, 0],
      paid_social: [1, 1],
      display: [0, 1],
    });
    const visitors = body.topChannels.map((c: any) => c.visitors);
    expect(visitors).toEqual([...visitors].sort((x: number, y: number) => y - x));
  });

  it("7d and 90d count each visitor once however many days it was seen", async () => {
    const week = (await a.get("/api/analytics/summary", { query: { period: "7d" } })).body;
    expect(week).toMatchObject({ visitors: 3, conversions: 3, leads: 1 });
    expect(week.period).toEqual({ from: isoDay(now - 6 * DAY), to: isoDay(now) });
    const quarter = (await a.get("/api/analytics/summary", { query: { period: "90d" } })).body;
    expect(quarter).toMatchObject({ visitors: 4, conversions: 3 });
  });

  it("custom periods take inclusive ISO dates", async () => {
    const from = isoDay(now - 40 * DAY);
    const res = await a.get("/api/analytics/summary", { query: { period: "custom", from, to: from } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ visitors: 1, conversions: 0, leads: 0, period: { from, to: from } });
    expect(res.body.topChannels).toEqual([
      {
        channel: "display",
        visitors: 1,
        conversions: 0,
        revenue: 0,
        firstTouchVisitors: 1,
        convertedVisitors: 0,
        conversionRate: 0,
      },
    ]);
    const dated = await a.get("/api/analytics/summary", {
      query: { period: "custom", from: `${isoDay(now - 2 * DAY)}T00:00:00Z`, to: isoDay(now) },
    });
    // v1 (-1d), v2 (-2d) and v3b, whose refund came at -2d; the purchase and the signup.
    expect(dated.body).toMatchObject({ visitors: 3, conversions: 2 });
  });

  it.each([
    [{ period: "custom", to: "2026-01-01" }, /from/],
    [{ period: "custom", from: "2026-01-01" }, /to/],
    [{ period: "custom", from: "2026-02-01", to: "2026-01-01" }, /from/],
    [{ period: "custom", from: "2026-13-45", to: "2026-12-01" }, /from/],
    [{ period: "custom", from: "2026-01-01", to: "yesterday" }, /to/],
    [{ period: "1y" }, /period/],
  ])("400 VALIDATION_ERROR naming the field for %j", async (query, field) => {
    const res = await a.get("/api/analytics/summary", { query: query as Record<string, string> });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
    expect(res.body.error).toMatch(field);
  });

  it("401 without credentials; another project sees only its own data", async () => {
    expect((await a.get("/api/analytics/summary", { as: "none" })).status).toBe(401);
    const b = await t.tenant();
    const res = await b.get("/api/analytics/summary");
    expect(res.body).toMatchObject({
      visitors: 0,
      leads: 0,
      conversions: 0,
      conversionRate: 0,
      topChannels: [],
    });
    expect((await a.get("/api/analytics/summary", { as: "admin" })).body.visitors).toBe(4);
  });
});

describe("goal metrics", () => {
  it("goals' current comes from conversions, revenue, signups, visitors and a conversion goal by name", async () => {
    const a = await t.tenant();
    const deadline = isoDay(Date.now() + 30 * DAY);
    await a.post("/api/conversion-goals", {
      name: "Demo booked",
      eventType: "form_submit",
      urlPattern: "*/demo*",
    });
    const metrics = [
      "visitors",
      "conversions",
      "revenue",
      "signups",
      "Demo booked",
      "conversion_rate",
      "leads",
    ];
    for (const metric of metrics) {
      const res = await a.post("/api/goals", { metric, target: 1000, deadline });
      expect(res.status).toBe(201);
    }
    const s = scope(a);
    const at = Date.now();
    await commitEvents(t.app, [
      committed(s, { visitorId: "g1", timestamp: at }),
      committed(s, {
        visitorId: "g1",
        timestamp: at,
        type: "form_submit",
        url: "https://x.example/demo?a=1",
      }),
      committed(s, { visitorId: "g2", timestamp: at, type: "form_submit", url: "https://x.example/contact" }),
      committed(s, { visitorId: "g2", timestamp: at, type: "sign_up" }),
      committed(s, { visitorId: "g3", timestamp: at, type: "$revenue", data: { revenue: 49.5 } }),
      committed(s, { visitorId: "g3", timestamp: at, type: "$revenue", data: { revenue: -10 } }),
      committed(s, { visitorId: "bot", timestamp: at, type: "sign_up", isBot: true }),
    ]);
    await t.app.worker.drain();
    const goals = (await a.get("/api/goals")).body as { metric: string; current: number }[];
    const current = Object.fromEntries(goals.map((g) => [g.metric, g.current]));
    expect(current).toEqual({
      visitors: 3,
      conversions: 2, // the demo form and the $revenue payment; the refund carries revenue only
      revenue: 39.5,
      signups: 1,
      "Demo booked": 1,
      conversion_rate: 0.666667, // six decimals, as every rate the API answers
      leads: 0,
    });
  });
});

describe("server-side events of a lead", () => {
  it("convert and credit the lead's web sessions, but are neither visitors nor touchpoints", async () => {
    const a = await t.tenant();
    const s = scope(a);
    const now = Date.now();
    const { lead } = await upsertLeadByEmail(
      t.app.deps,
      { id: a.projectId, workspaceId: a.workspaceId },
      { email: "payer@example.com", source: "payments" },
    );
    await commitEvents(t.app, [
      committed(s, { visitorId: "web1", channel: "organic_search", timestamp: now - DAY }),
    ]);
    expect((await a.post("/api/identity", { visitorId: "web1", leadId: lead.id })).status).toBe(200);
    await commitEvents(t.app, [
      committed(s, {
        visitorId: `lead:${lead.id}`,
        leadId: lead.id,
        type: "$revenue",
        data: { revenue: 100, currency: "USD" },
        origin: "server",
        sessionId: "",
        channel: "unattributed",
        timestamp: now,
      }),
    ]);
    const attribution = await a.get("/api/attribution/summary", { query: { model: "last_touch" } });
    expect(attribution.body.channels).toEqual([
      { channel: "organic_search", creditedConversions: 1, revenue: 100 },
    ]);
    const summary = await a.get("/api/analytics/summary", { query: { period: "7d" } });
    expect(summary.body).toMatchObject({ visitors: 1, conversions: 1, leads: 1 });
  });
});

describe("touchpoints", () => {
  it("a session id seen in one project still starts a touchpoint in another", async () => {
    const [a, b] = [await t.tenant(), await t.tenant()];
    const at = Date.now() - DAY;
    for (const x of [a, b])
      await commitEvents(t.app, [
        committed(scope(x), { visitorId: "same", channel: "email", timestamp: at, sessionId: "ses_shared" }),
      ]);
    const rows = await t.app.db
      .selectFrom("analytics_touchpoints")
      .select(["project_id", "channel"])
      .where("session_id", "=", "ses_shared")
      .execute();
    expect(rows.map((r) => r.project_id).sort()).toEqual([a.projectId, b.projectId].sort());
  });
});
