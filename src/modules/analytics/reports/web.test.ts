import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../../test/helpers/app.js";
import { DAY, type Dataset, SITE, generate } from "../../../../test/analytics/truth/dataset.js";
import { sendDataset } from "../../../../test/analytics/truth/send.js";
import { periodOf } from "../../../../test/analytics/truth/truth.js";
import {
  type Headline,
  type Row,
  type Visit,
  dailyOf,
  headlineOf,
  inPeriod,
  listOf,
  pagesOf,
  visitsOf,
} from "../../../../test/analytics/truth/web-truth.js";

/**
 * POST /api/analytics/web against truth computed independently (test/analytics/truth/): a seeded
 * month of visits from seven channels, with UTM tags, countries, three devices and signups.
 */

let app: TestApp;
let t: Tenant;
let d: Dataset;
let visits: Visit[];
let signupGoal: string;

beforeAll(async () => {
  app = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
  t = await app.tenant();
  const goal = await t.post("/api/conversion-goals", { name: "Signup", eventType: "signup" });
  expect(goal.status).toBe(201);
  signupGoal = goal.body.id;
  d = generate(47, Date.now(), 300);
  await sendDataset(t, d);
  visits = visitsOf(d);
}, 120_000);
afterAll(async () => app?.close());

type WebRow = Row & { value: string; conversions?: number };
interface WebAnswer {
  compare: { from: string; to: string };
  headline: Record<keyof Headline, { value: number; previous: number }>;
  chart: { bucket: string; visitors: number; visits: number; pageviews: number }[];
  lists: Record<string, { rows: WebRow[]; more: boolean }>;
  breakdown?: {
    keys: string[];
    rows: (Row & { values: string[]; bounceRate: number; visitDuration: number })[];
    more: boolean;
  };
}

const web = async (body: Record<string, unknown>): Promise<WebAnswer> => {
  const res = await t.post("/api/analytics/web", body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as WebAnswer;
};

function expectHeadline(got: WebAnswer["headline"], now: Headline, before: Headline) {
  for (const k of Object.keys(now) as (keyof Headline)[]) {
    expect(got[k].value, k).toBeCloseTo(now[k], 5);
    expect(got[k].previous, `${k} (previous)`).toBeCloseTo(before[k], 5);
  }
}

const asMap = (rows: WebRow[]) =>
  new Map(rows.map((r) => [r.value, { visitors: r.visitors, visits: r.visits, pageviews: r.pageviews }]));

const LIST_KEYS: Record<string, string> = {
  entry_pages: "entry_page",
  exit_pages: "exit_page",
  sources: "source",
  channels: "channel",
  utm_source: "utm_source",
  utm_medium: "utm_medium",
  utm_campaign: "utm_campaign",
  utm_term: "utm_term",
  utm_content: "utm_content",
  countries: "country",
  devices: "device",
  browsers: "browser",
  os: "os",
};

describe("POST /api/analytics/web", () => {
  it("answers every headline number, with the previous period's, as the truth has them", async () => {
    const now = Date.now();
    const p = periodOf(7, now);
    const got = await web({ period: "7d", lists: [] });
    const before = { from: p.from - 7 * DAY, to: p.from };
    expect(got.compare.from).toBe(new Date(before.from).toISOString().slice(0, 10));
    expectHeadline(got.headline, headlineOf(inPeriod(visits, p)), headlineOf(inPeriod(visits, before)));
    expect(got.headline.pageviews.value).toBeGreaterThan(got.headline.visits.value);
    expect(got.headline.bounceRate.value).toBeGreaterThan(0);
  });

  it("answers the chart per day and every list as the truth has them", async () => {
    const p = periodOf(30, Date.now());
    const truth = inPeriod(visits, p);
    const got = await web({ period: "30d", limit: 100 });
    expect(got.chart.map(({ visitors, visits, pageviews }) => ({ visitors, visits, pageviews }))).toEqual(
      dailyOf(truth, p),
    );
    expect(asMap(got.lists.pages!.rows)).toEqual(pagesOf(truth));
    for (const [list, key] of Object.entries(LIST_KEYS)) {
      expect(asMap(got.lists[list]!.rows), list).toEqual(listOf(truth, key));
      expect(got.lists[list]!.more).toBe(false);
    }
    // The tags as sent, decoded: `analytics+tool` and `header%20link`.
    expect(got.lists.utm_term!.rows.map((r) => r.value)).toContain("analytics tool");
    expect(got.lists.utm_content!.rows.map((r) => r.value)).toContain("header link");
    expect(got.lists.countries!.rows.map((r) => r.value).sort()).toEqual([
      "(none)",
      "DE",
      "FR",
      "GB",
      "IN",
      "US",
    ]);
  });

  it("keeps the top rows by visitors and says there are more", async () => {
    const truth = listOf(inPeriod(visits, periodOf(30, Date.now())), "channel");
    const got = await web({ period: "30d", limit: 2, lists: ["channels"] });
    const top = [...truth.values()].map((r) => r.visitors).sort((a, b) => b - a);
    expect(got.lists.channels!.rows.map((r) => r.visitors)).toEqual(top.slice(0, 2));
    expect(got.lists.channels!.more).toBe(true);
    expect(Object.keys(got.lists)).toEqual(["channels"]);
  });

  it("breaks visits down by two values (channel × device)", async () => {
    const truth = inPeriod(visits, periodOf(30, Date.now()));
    const got = await web({ period: "30d", lists: [], limit: 100, breakdown: ["channel", "device"] });
    const want = new Map<string, Visit[]>();
    for (const v of truth) {
      const k = `${v.values.channel}|${v.values.device}`;
      want.set(k, [...(want.get(k) ?? []), v]);
    }
    expect(got.breakdown!.keys).toEqual(["channel", "device"]);
    expect(got.breakdown!.rows.length).toBe(want.size);
    for (const row of got.breakdown!.rows) {
      const h = headlineOf(want.get(row.values.join("|"))!);
      expect(row).toMatchObject({ visitors: h.visitors, visits: h.visits, pageviews: h.pageviews });
      expect(row.bounceRate).toBeCloseTo(h.bounceRate, 5);
      expect(row.visitDuration).toBeCloseTo(h.visitDuration, 5);
    }
  });

  it("counts the goal's conversions in the visits, and filters by session, event, page and country", async () => {
    const now = Date.now();
    const p = periodOf(30, now);
    const before = { from: p.from - 30 * DAY, to: p.from };
    const both = (keep: (v: Visit) => boolean) => ({
      now: headlineOf(inPeriod(visits, p).filter(keep)),
      before: headlineOf(inPeriod(visits, before).filter(keep)),
    });
    const pricing = `${SITE}/pricing`;
    const cases: [Record<string, unknown>, (v: Visit) => boolean][] = [
      [{ goal: signupGoal }, () => true],
      [{ filter: [{ key: "device", op: "is", value: "mobile" }] }, (v) => v.values.device === "mobile"],
      [{ filter: [{ key: "page", op: "is", value: pricing }] }, (v) => v.urls.includes(pricing)],
      [{ filter: [{ key: "country", op: "is", value: "DE" }] }, (v) => v.values.country === "DE"],
      [
        {
          filter: [
            { key: "channel", op: "is", value: "paid_search" },
            { key: "event", op: "is", value: "signup" },
          ],
        },
        (v) => v.values.channel === "paid_search" && v.signups > 0,
      ],
    ];
    for (const [body, keep] of cases) {
      const got = await web({ period: "30d", lists: [], ...body });
      const want = both(keep);
      expect(want.now.visits, JSON.stringify(body)).toBeGreaterThan(0);
      expectHeadline(got.headline, want.now, want.before);
    }
  });

  it("filters by a page whatever its query string, and by the landing URL's UTM tags, as the rows do", async () => {
    const p = periodOf(30, Date.now());
    const before = { from: p.from - 30 * DAY, to: p.from };
    const pricing = `${SITE}/pricing`;
    const pageOf = (url: string) => url.replace(/[?#].*$/, "");
    const cases: [Record<string, unknown>, (v: Visit) => boolean][] = [
      [{ key: "page_no_query", op: "is", value: pricing }, (v) => v.urls.some((u) => pageOf(u) === pricing)],
      [{ key: "utm_medium", op: "is", value: "cpc" }, (v) => v.values.utm_medium === "cpc"],
      [{ key: "utm_source", op: "is", value: "facebook" }, (v) => v.values.utm_source === "facebook"],
      [{ key: "utm_campaign", op: "is", value: "weekly" }, (v) => v.values.utm_campaign === "weekly"],
      [{ key: "utm_term", op: "is", value: "analytics tool" }, (v) => v.values.utm_term === "analytics tool"],
      [{ key: "utm_content", op: "is", value: "header link" }, (v) => v.values.utm_content === "header link"],
      [{ key: "utm_source", op: "is", value: "(none)" }, (v) => v.values.utm_source === "(none)"],
    ];
    // Pricing was seen with a query string (a campaign's landing) as well as without one.
    const seen = inPeriod(visits, p).flatMap((v) => v.urls.filter((u) => pageOf(u) === pricing));
    expect(seen.some((u) => u.includes("?")) && seen.some((u) => !u.includes("?"))).toBe(true);
    for (const [cond, keep] of cases) {
      const got = await web({ period: "30d", lists: [], filter: [cond] });
      const now = headlineOf(inPeriod(visits, p).filter(keep));
      expect(now.visits, JSON.stringify(cond)).toBeGreaterThan(0);
      expectHeadline(got.headline, now, headlineOf(inPeriod(visits, before).filter(keep)));
    }
  });

  it("refuses a breakdown by one key twice and too many buckets, with 400s", async () => {
    const twice = await t.post("/api/analytics/web", { breakdown: ["device", "device"] });
    expect(twice.status).toBe(400);
    expect(twice.body).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
    const hours = await t.post("/api/analytics/web", { period: "90d", interval: "hour" });
    expect(hours.status).toBe(400);
    const unknown = await t.post("/api/analytics/web", { lists: ["planets"] });
    expect(unknown.status).toBe(400);
    const goal = await t.post("/api/analytics/web", { goal: "nope" });
    expect(goal.status).toBe(400);
    expect(goal.body.error).toContain("body.goal");
  });
});
