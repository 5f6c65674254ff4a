import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../../test/helpers/app.js";
import { DAY, type Scope, commitEvents, committed } from "../analytics.testing.js";

/**
 * Trustworthy numbers: conversion rate per person, one visitor total, revenue with
 * its currency — each against figures worked out by hand from this week:
 *
 *  day (2025-03-03 = d0, a Monday … d6)
 *  A   d0 organic_search: form_submit     d1 email: purchase 100 EUR
 *  B   d0 direct
 *  C   d2 paid_search: purchase 50 EUR     d5: a refund of -20 EUR (server)
 *  D   d1 direct, d4 direct
 *  E   d3 referral: form_submit            } E and E2 are one lead (linked after the events)
 *  E2  d3 referral; d5 referral: purchase 80 EUR
 *  an anonymous server $revenue of 30 EUR on d4 (no visitor, no lead); a bot's purchase on d2
 *
 *  visitors 6 (A B C D E E2); per day 2,2,1,2,1,1,0 = 9 — the days' sum is not the week's visitors
 *  conversions 6 (A×2, C, E, E2, the anonymous one; the refund is not one)
 *  visitors who converted 4 (A, C, and the lead's E and E2): 4/6 of the visitors; per event 6/6 = 1
 *  revenue 100 + 50 − 20 + 80 + 30 = 240 EUR
 */
const D0 = Date.UTC(2025, 2, 3) + 9 * 3_600_000;
const at = (day: number, minutes = 0) => D0 + day * DAY + minutes * 60_000;
const WEEK = { period: "custom", from: "2025-03-03", to: "2025-03-09" };

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

async function seed(a: Tenant, currencyOfE2 = "EUR") {
  await a.post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" });
  await a.post("/api/conversion-goals", { name: "Lead form", eventType: "form_submit" });
  const s: Scope = { projectId: a.projectId, workspaceId: a.workspaceId };
  const visit = (visitorId: string, channel: string, time: number, extra: Record<string, unknown>[] = []) => {
    const sessionId = `${visitorId}@${time}`;
    return [
      committed(s, { visitorId, channel, timestamp: time, sessionId }),
      ...extra.map((e, i) =>
        committed(s, {
          visitorId,
          channel,
          timestamp: time + (i + 1) * 60_000,
          sessionId,
          sessionStarted: false,
          ...e,
        }),
      ),
    ];
  };
  const server = (visitorId: string, time: number, data: Record<string, unknown>) =>
    committed(s, {
      visitorId,
      type: "$revenue",
      data,
      timestamp: time,
      origin: "server",
      sessionId: "",
      channel: "unattributed",
    });
  await commitEvents(t.app, [
    ...visit("A", "organic_search", at(0), [{ type: "form_submit" }]),
    ...visit("B", "direct", at(0, 30)),
    ...visit("D", "direct", at(1)),
    ...visit("A", "email", at(1, 10), [{ type: "purchase", data: { revenue: 100, currency: "eur" } }]),
    ...visit("C", "paid_search", at(2), [{ type: "purchase", data: { revenue: 50, currency: "EUR" } }]),
    ...visit("bot", "organic_search", at(2), [{ type: "purchase", data: { revenue: 999 } }]).map((e) => ({
      ...e,
      isBot: true,
    })),
    ...visit("E", "referral", at(3), [{ type: "form_submit" }]),
    ...visit("E2", "referral", at(3, 5)),
    ...visit("D", "direct", at(4)),
    server("", at(4, 20), { revenue: 30, currency: "EUR" }),
    server("C", at(5), { revenue: -20, currency: "EUR" }),
    ...visit("E2", "referral", at(5, 10), [
      { type: "purchase", data: { revenue: 80, currency: currencyOfE2 } },
    ]),
  ]);
  for (const visitorId of ["E", "E2"])
    expect((await a.post("/api/identity", { visitorId, leadId: "lead-e" })).status).toBe(200);
}

const get = async (a: Tenant, url: string, query: Record<string, string>) => {
  const res = await a.get(url, { query });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};

describe("the week's numbers (hand-computed)", () => {
  let a: Tenant;
  beforeAll(async () => {
    a = await t.tenant();
    await seed(a);
  });

  it("summary: conversion rate per person beside the per-event figure, revenue with its currency", async () => {
    const s = await get(a, "/api/analytics/summary", WEEK);
    expect(s).toMatchObject({
      visitors: 6,
      conversions: 6,
      convertedVisitors: 4,
      conversionRate: 0.666667,
      conversionsPerVisitor: 1,
      revenue: 240,
      revenueCurrency: "EUR",
      revenueCurrencies: ["EUR"],
      // the lead was made today, by the link: not in this week
      leads: 0,
    });
    const channels = Object.fromEntries(
      s.topChannels.map((c: Record<string, number>) => [
        c.channel,
        [c.visitors, c.conversions, c.firstTouchVisitors, c.convertedVisitors],
      ]),
    );
    // conversions under the person's first touch: A organic_search (2), C paid_search, the lead referral (2);
    // the rate's basis is the first touch too: A first came from search (not email), B and D direct
    expect(channels).toEqual({
      organic_search: [1, 2, 1, 1],
      email: [1, 0, 0, 0],
      direct: [2, 0, 2, 0],
      paid_search: [1, 1, 1, 1],
      referral: [2, 2, 2, 2],
      unattributed: [0, 1, 0, 0],
    });
    expect(s.topChannels.find((c: { channel: string }) => c.channel === "referral").conversionRate).toBe(1);
  });

  it("timeseries: the period's visitors are the summary's, not the sum of the days", async () => {
    const ts = await get(a, "/api/analytics/timeseries", { ...WEEK, interval: "day" });
    expect(ts.points.map((p: { visitors: number }) => p.visitors)).toEqual([2, 2, 1, 2, 1, 1, 0]);
    expect(ts.totals).toEqual({ visitors: 6, convertedVisitors: 4, leads: 0, conversions: 6, revenue: 240 });
    const weekly = await get(a, "/api/analytics/timeseries", { ...WEEK, interval: "week" });
    expect(weekly.points).toHaveLength(1);
    expect(weekly.points[0].visitors).toBe(6);
    expect(weekly.totals.visitors).toBe(6);
    // a period cut inside the week: d1–d3 saw A, D, C, E, E2
    const cut = await get(a, "/api/analytics/timeseries", {
      period: "custom",
      from: "2025-03-04",
      to: "2025-03-06",
    });
    const summary = await get(a, "/api/analytics/summary", {
      period: "custom",
      from: "2025-03-04",
      to: "2025-03-06",
    });
    expect([cut.totals.visitors, summary.visitors]).toEqual([5, 5]);
  });

  it("with the report filter, on the rollup path and the raw path", async () => {
    // channel alone reads the rollups: organic_search and email are A's sessions only
    const fast = JSON.stringify([{ key: "channel", op: "is", value: ["organic_search", "email"] }]);
    const f = await get(a, "/api/analytics/summary", { ...WEEK, filter: fast });
    expect(f).toMatchObject({
      visitors: 1,
      conversions: 2,
      convertedVisitors: 1,
      conversionRate: 1,
      conversionsPerVisitor: 2,
      revenue: 100,
    });
    const ft = await get(a, "/api/analytics/timeseries", { ...WEEK, filter: fast });
    expect(ft.totals).toMatchObject({ visitors: 1, convertedVisitors: 1, conversions: 2 });
    // not direct (raw data): visits of A, C, E, E2; conversions whose person's first touch is not
    // direct — all six (the anonymous one has no session at all); all four visitors converted
    const raw = JSON.stringify([{ key: "channel", op: "is_not", value: "direct" }]);
    const r = await get(a, "/api/analytics/summary", { ...WEEK, filter: raw });
    expect(r).toMatchObject({
      visitors: 4,
      conversions: 6,
      convertedVisitors: 4,
      conversionRate: 1,
      conversionsPerVisitor: 1.5,
      revenue: 240,
      revenueCurrency: "EUR",
    });
    const rt = await get(a, "/api/analytics/timeseries", { ...WEEK, filter: raw });
    // per day A; A; C; E, E2; –; E2 → 6 visits in days, 4 visitors
    expect(rt.points.map((p: { visitors: number }) => p.visitors)).toEqual([1, 1, 1, 2, 0, 1, 0]);
    expect(rt.totals).toEqual({ visitors: 4, convertedVisitors: 4, leads: 0, conversions: 6, revenue: 240 });
  });

  it("the goal metric conversion_rate is per person too", async () => {
    const res = await a.post("/api/goals", {
      metric: "conversion_rate",
      target: 0.9,
      deadline: "2025-03-31",
      startDate: "2025-03-03",
    });
    expect(res.status).toBe(201);
    // the goal counts up to now: the week is all there is
    expect(res.body.current).toBe(0.666667);
  });
});

describe("revenue currency", () => {
  it("mixed currencies are named, and no single currency is claimed", async () => {
    const a = await t.tenant();
    await seed(a, "USD");
    const s = await get(a, "/api/analytics/summary", WEEK);
    expect(s).toMatchObject({ revenue: 240, revenueCurrency: null, revenueCurrencies: ["EUR", "USD"] });
  });

  it("no currency on the events: none claimed", async () => {
    const a = await t.tenant();
    const s: Scope = { projectId: a.projectId, workspaceId: a.workspaceId };
    await commitEvents(t.app, [
      committed(s, { visitorId: "x", type: "$revenue", data: { revenue: 12.5 }, timestamp: at(1) }),
    ]);
    expect(await get(a, "/api/analytics/summary", WEEK)).toMatchObject({
      revenue: 12.5,
      revenueCurrency: null,
      revenueCurrencies: [],
      convertedVisitors: 1,
      conversionRate: 1,
    });
  });
});
