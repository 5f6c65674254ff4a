import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../../test/helpers/app.js";
import { ESTIMATE_CONFIDENCE, ESTIMATE_ERROR, STORED_EXACT } from "../ingest/hll.js";
import { DAY, type Scope, commitEvents, committed } from "../analytics.testing.js";

/**
 * Which counts say they are estimates. Week 1 (2025-03-03, a Monday): on d0 5,000 visitors from
 * organic search land on "/", more than a stored day's exact sketch holds; on d1 30 visitors from
 * email land on "/pricing". Week 2: 3,000 referral visitors on each of d7, d8, d9, all different —
 * every day's row exact, their union (9,000) exact too.
 */
const D0 = Date.UTC(2025, 2, 3) + 9 * 3_600_000;
const BIG = 5000;
const SMALL = 30;
const SHOP = "https://shop.example.com";
const ESTIMATE = { estimated: true, relativeError: ESTIMATE_ERROR, confidence: ESTIMATE_CONFIDENCE };

let t: TestApp;
let a: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.tenant();
  const s: Scope = { projectId: a.projectId, workspaceId: a.workspaceId };
  const visits = (prefix: string, n: number, day: number, channel: string, path: string) =>
    Array.from({ length: n }, (_, i) =>
      committed(s, {
        visitorId: `${prefix}${i}`,
        channel,
        url: `${SHOP}${path}`,
        timestamp: D0 + day * DAY + i,
      }),
    );
  const events = [
    ...visits("big", BIG, 0, "organic_search", "/"),
    ...visits("small", SMALL, 1, "email", "/pricing"),
    ...visits("w2a", 3000, 7, "referral", "/"),
    ...visits("w2b", 3000, 8, "referral", "/"),
    ...visits("w2c", 3000, 9, "referral", "/"),
  ];
  for (let i = 0; i < events.length; i += 2000) await commitEvents(t.app, events.slice(i, i + 2000));
}, 60_000);
afterAll(async () => t.close());

const get = async <T>(path: string): Promise<T> => {
  const res = await a.get<T>(path);
  expect(res.status).toBe(200);
  return res.body;
};
const WEEK1 = "period=custom&from=2025-03-03&to=2025-03-04";
const within = (n: number, truth: number) => Math.abs(n - truth) / truth <= ESTIMATE_ERROR;

type Counted = { visitors: number; visitorsEstimate?: unknown };
type Summary = Counted & { topChannels: (Counted & { channel: string })[] };
type Series = { points: (Counted & { date: string })[]; totals: Counted };
type Rows = { rows: (Counted & { key: string })[] };

describe("estimated counts say so, exact ones do not", () => {
  it("summary: the period and the large channel are estimates within the bound; the small channel is exact", async () => {
    expect(BIG).toBeGreaterThan(STORED_EXACT);
    const s = await get<Summary>(`/api/analytics/summary?${WEEK1}`);
    expect(s.visitorsEstimate).toEqual(ESTIMATE);
    expect(within(s.visitors, BIG + SMALL)).toBe(true);
    const channels = Object.fromEntries(s.topChannels.map((c) => [c.channel, c]));
    expect(channels.organic_search!.visitorsEstimate).toEqual(ESTIMATE);
    expect(within(channels.organic_search!.visitors, BIG)).toBe(true);
    expect(channels.email).toEqual(expect.objectContaining({ visitors: SMALL }));
    expect(channels.email).not.toHaveProperty("visitorsEstimate");
  });

  it("time series: the large day and the totals are estimates; the small day is exact", async () => {
    const ts = await get<Series>(`/api/analytics/timeseries?${WEEK1}&interval=day`);
    const [d0, d1] = ts.points;
    expect(d0!.visitorsEstimate).toEqual(ESTIMATE);
    expect(within(d0!.visitors, BIG)).toBe(true);
    expect(d1).toEqual(expect.objectContaining({ date: "2025-03-04", visitors: SMALL }));
    expect(d1).not.toHaveProperty("visitorsEstimate");
    expect(ts.totals.visitorsEstimate).toEqual(ESTIMATE);
  });

  it("breakdown: rows past the exact sketch say so, small rows do not", async () => {
    const pages = await get<Rows>(`/api/analytics/breakdown?by=landing_page&${WEEK1}`);
    const rows = Object.fromEntries(pages.rows.map((r) => [r.key, r]));
    expect(rows[`${SHOP}/`]!.visitorsEstimate).toEqual(ESTIMATE);
    expect(within(rows[`${SHOP}/`]!.visitors, BIG)).toBe(true);
    expect(rows[`${SHOP}/pricing`]).toEqual(expect.objectContaining({ visitors: SMALL }));
    expect(rows[`${SHOP}/pricing`]).not.toHaveProperty("visitorsEstimate");
    const channels = await get<Rows>(`/api/analytics/breakdown?by=channel&${WEEK1}`);
    expect(channels.rows.find((r) => r.key === "organic_search")!.visitorsEstimate).toEqual(ESTIMATE);
    expect(channels.rows.find((r) => r.key === "email")).not.toHaveProperty("visitorsEstimate");
  });

  it("a union of exact days stays exact past the stored limit: 3 × 3,000 different visitors are 9,000", async () => {
    const q = "period=custom&from=2025-03-10&to=2025-03-12";
    const s = await get<Summary>(`/api/analytics/summary?${q}`);
    expect(s.visitors).toBe(9000);
    expect(s).not.toHaveProperty("visitorsEstimate");
    expect(s.topChannels[0]).toEqual(expect.objectContaining({ channel: "referral", visitors: 9000 }));
    expect(s.topChannels[0]).not.toHaveProperty("visitorsEstimate");
    const ts = await get<Series>(`/api/analytics/timeseries?${q}&interval=day`);
    expect(ts.points.map((p) => p.visitors)).toEqual([3000, 3000, 3000]);
    expect(ts.totals).toEqual(expect.objectContaining({ visitors: 9000 }));
    expect(ts.totals).not.toHaveProperty("visitorsEstimate");
  });
});
