import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../../test/helpers/app.js";
import { upsertLeadByEmail } from "../../identity/service.js";
import { type Scope, commitEvents, committed } from "../analytics.testing.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const scope = (a: Tenant): Scope => ({ projectId: a.projectId, workspaceId: a.workspaceId });
const at = (iso: string) => Date.parse(iso);

/**
 * 2025-03-01 is a Saturday; Monday-based weeks split 03-01..03-14 into 03-01–02, 03-03–09, 03-10–14.
 *  v1: direct 03-01, direct 03-04, organic_search 03-05
 *  v2: paid_search 03-04 with a purchase of 30
 *  v3: referral 03-10 with a $revenue of 50, a refund of -20 on 03-11
 *  a bot on 03-04 with a purchase of 999: left out
 */
async function seed(a: Tenant) {
  await a.post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" });
  const s = scope(a);
  const ev = (visitorId: string, iso: string, extra: Record<string, unknown> = {}) =>
    committed(s, { visitorId, timestamp: at(iso), sessionId: `${visitorId}@${iso.slice(0, 10)}`, ...extra });
  await commitEvents(t.app, [
    ev("v1", "2025-03-01T10:00:00Z"),
    ev("v1", "2025-03-04T10:00:00Z"),
    ev("v1", "2025-03-05T10:00:00Z", { channel: "organic_search" }),
    ev("v2", "2025-03-04T11:00:00Z", { channel: "paid_search" }),
    ev("v2", "2025-03-04T11:05:00Z", {
      channel: "paid_search",
      type: "purchase",
      data: { revenue: 30 },
      sessionId: "v2@2025-03-04",
    }),
    ev("v3", "2025-03-10T09:00:00Z", { channel: "referral" }),
    ev("v3", "2025-03-10T09:01:00Z", { channel: "referral", type: "$revenue", data: { revenue: 50 } }),
    ev("v3", "2025-03-11T09:00:00Z", { channel: "referral", type: "$revenue", data: { revenue: -20 } }),
    ev("bot", "2025-03-04T12:00:00Z", { isBot: true, type: "purchase", data: { revenue: 999 } }),
  ]);
}

const zero = { visitors: 0, leads: 0, conversions: 0, revenue: 0 };

describe("GET /api/analytics/timeseries", () => {
  let a: Tenant;
  beforeAll(async () => {
    a = await t.tenant();
    await seed(a);
  });

  it("daily buckets over a custom period, zero-filled, bots and refunds handled like the summary", async () => {
    const res = await a.get("/api/analytics/timeseries?period=custom&from=2025-03-01&to=2025-03-14");
    expect(res.status).toBe(200);
    expect(res.body.interval).toBe("day");
    expect(res.body.period).toEqual({ from: "2025-03-01", to: "2025-03-14" });
    expect(res.body.points).toHaveLength(14);
    const byDate = Object.fromEntries(res.body.points.map((p: { date: string }) => [p.date, p]));
    expect(byDate["2025-03-01"]).toEqual({ date: "2025-03-01", ...zero, visitors: 1 });
    expect(byDate["2025-03-02"]).toEqual({ date: "2025-03-02", ...zero });
    expect(byDate["2025-03-04"]).toEqual({
      date: "2025-03-04",
      ...zero,
      visitors: 2,
      conversions: 1,
      revenue: 30,
    });
    expect(byDate["2025-03-05"]).toEqual({ date: "2025-03-05", ...zero, visitors: 1 });
    expect(byDate["2025-03-10"]).toEqual({
      date: "2025-03-10",
      ...zero,
      visitors: 1,
      conversions: 1,
      revenue: 50,
    });
    // A refund is revenue but not a conversion.
    expect(byDate["2025-03-11"]).toEqual({ date: "2025-03-11", ...zero, visitors: 1, revenue: -20 });
    expect(byDate["2025-03-14"]).toEqual({ date: "2025-03-14", ...zero });
    expect(res.body.points.map((p: { date: string }) => p.date)).toEqual(
      [...res.body.points.map((p: { date: string }) => p.date)].sort(),
    );
  });

  it("weekly buckets are Monday-based weeks cut at the period's edges; a visitor counts once per week", async () => {
    const res = await a.get(
      "/api/analytics/timeseries?period=custom&from=2025-03-01&to=2025-03-14&interval=week",
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      goal: null,
      interval: "week",
      period: { from: "2025-03-01", to: "2025-03-14" },
      points: [
        { date: "2025-03-01", ...zero, visitors: 1 },
        // v1 on two days and v2 once: two distinct visitors
        { date: "2025-03-03", ...zero, visitors: 2, conversions: 1, revenue: 30 },
        { date: "2025-03-10", ...zero, visitors: 1, conversions: 1, revenue: 30 },
      ],
      // the weeks' visitors add up to 4; the period saw 3 (v1 in two weeks); v2 and v3 converted
      totals: { visitors: 3, convertedVisitors: 2, leads: 0, conversions: 2, revenue: 60 },
    });
  });

  it("a full week inside the period reads the same visitors as its days", async () => {
    const res = await a.get(
      "/api/analytics/timeseries?period=custom&from=2025-03-03&to=2025-03-09&interval=week",
    );
    expect(res.body.points).toEqual([
      { date: "2025-03-03", ...zero, visitors: 2, conversions: 1, revenue: 30 },
    ]);
  });

  it("presets end today: 7d has 7 daily points, the last one today, with today's new lead", async () => {
    const b = await t.tenant();
    await upsertLeadByEmail(
      t.app.deps,
      { id: b.projectId, workspaceId: b.workspaceId },
      {
        email: "ada@example.com",
        source: "api",
      },
    );
    const res = await b.get("/api/analytics/timeseries?period=7d", { as: "admin" });
    expect(res.status).toBe(200);
    const today = new Date().toISOString().slice(0, 10);
    expect(res.body.points).toHaveLength(7);
    expect(res.body.points[6]).toEqual({ date: today, ...zero, leads: 1 });
    expect(res.body.points.slice(0, 6).every((p: { leads: number }) => p.leads === 0)).toBe(true);
    const week = await b.get("/api/analytics/timeseries?period=90d&interval=week");
    const leads = week.body.points.reduce((n: number, p: { leads: number }) => n + p.leads, 0);
    expect(leads).toBe(1);
    expect(week.body.points.length).toBeGreaterThanOrEqual(13);
    expect(week.body.points.length).toBeLessThanOrEqual(14);
  });

  it("400 on a bad interval, period or custom range; 401 without credentials; other projects see nothing", async () => {
    for (const q of [
      "interval=month",
      "period=1y",
      "period=custom&from=2025-03-01",
      "period=custom&from=2025-03-10&to=2025-03-01",
      "period=custom&from=March&to=2025-03-01",
    ]) {
      const res = await a.get(`/api/analytics/timeseries?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
    }
    const none = await a.get("/api/analytics/timeseries", { as: "none" });
    expect(none.status).toBe(401);
    const other = await t.tenant();
    const res = await other.get("/api/analytics/timeseries?period=custom&from=2025-03-01&to=2025-03-14");
    expect(res.body.points).toHaveLength(14);
    for (const p of res.body.points) expect(p).toEqual({ date: p.date, ...zero });
  });
});
