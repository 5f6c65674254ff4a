import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { seedFilterProject } from "../analytics/filters/filter-fixture.testing.js";

/**
 * A dashboard-wide period and filter: every tile inherits them (filter-fixture.testing.ts figures:
 * three visitors in the last 7 days, one of them on a phone).
 */
let t: TestApp;
let a: Tenant;
let dashboardId: string;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.tenant();
  await seedFilterProject(a);
  const insight = async (kind: string, name: string, settings: unknown) =>
    (await a.post("/api/insights", { kind, name, settings })).body.id as string;
  const summary = await insight("summary", "Last week", { period: "7d" });
  const trend = await insight("trends", "Pageviews", { series: [{ event: "pageview" }], period: "7d" });
  const attribution = await insight("attribution", "Credit", { period: "7d" });
  const dash = await a.post("/api/dashboards", {
    name: "Ranged",
    items: [
      { insightId: summary, x: 0, y: 0, w: 4, h: 1 },
      { insightId: trend, x: 4, y: 0, w: 4, h: 1 },
      { insightId: attribution, x: 8, y: 0, w: 4, h: 1 },
    ],
  });
  dashboardId = dash.body.id;
}, 60_000);
afterAll(async () => t?.close());

const results = async (query: string) => {
  const res = await a.get(`/api/dashboards/${dashboardId}/results${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body.tiles as any[];
};

describe("the dashboard's period and filter", () => {
  it("replace each tile's saved period and add to its filter, without mixing kept answers", async () => {
    const [saved, savedTrend] = await results("");
    expect(saved.answer.result.visitors).toBe(3);
    const pageviews = savedTrend.answer.result.series[0].total;
    expect(pageviews).toBeGreaterThan(0);

    const [old, oldTrend, oldCredit] = await results("?period=custom&from=2020-01-01&to=2020-01-31");
    expect(old.answer.result.period).toMatchObject({ from: "2020-01-01", to: "2020-01-31" });
    expect(old.answer.result.visitors).toBe(0);
    expect(oldTrend.answer.result.series[0].total).toBe(0);
    expect(oldTrend.answer.result.series[0].data[0].bucket).toBe("2020-01-01T00:00:00.000Z");
    // Attribution has no custom range: it keeps its saved period and still answers.
    expect(oldCredit.error).toBeNull();

    const phone = encodeURIComponent(JSON.stringify([{ key: "device", op: "is", value: "mobile" }]));
    const [mobile] = await results(`?filter=${phone}`);
    expect(mobile.answer.result.visitors).toBe(1);
    const [month] = await results(`?period=30d&filter=${phone}`);
    expect(month.answer.result.visitors).toBe(1);
    // The plain view is still the saved settings' answer.
    expect((await results(""))[0].answer.result.visitors).toBe(3);
  }, 60_000);

  it("refuses a range or filter it cannot use with a 400 naming the field", async () => {
    for (const [q, match] of [
      ["?period=custom&from=2020-01-01", /query\.to/],
      ["?period=week", /period/],
      ["?filter=not-json", /query\.filter/],
      [`?filter=${encodeURIComponent('[{"key":"device","op":"nearly"}]')}`, /query\.filter/],
    ] as const) {
      const res = await a.get(`/api/dashboards/${dashboardId}/results${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
      expect(res.body.error).toMatch(match);
    }
  });
});
