import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../../test/helpers/app.js";
import { parseUserAgent } from "../ingest/dimensions.js";
import { commitEvents, committed } from "../analytics.testing.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const HOUR = 3_600_000;
const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const WINDOWS_CHROME =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";
const MAC_FIREFOX = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.1; rv:121.0) Gecko/20100101 Firefox/121.0";
const GOOGLEBOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

type Row = { key: string; visitors: number; conversions: number; conversionRate: number; revenue: number };
const SHOP = "https://shop.example.com";

/**
 * Three visitors and a bot through POST /api/events, and a server payment (hand-computed below):
 *  phone (iPhone): lands /pricing from a newsletter link (utm_campaign=spring), views /checkout,
 *    buys for 40 (a conversion goal) in that session;
 *  laptop (Windows, Chrome): lands / from Google, views /pricing;
 *  mac (macOS, Firefox): lands /pricing from news.ycombinator.com;
 *  crawler (Googlebot): lands /pricing — left out everywhere;
 *  lead L1: a $revenue of 25 sent by the shop's server, no web visit.
 */
async function seed(a: Tenant): Promise<void> {
  await a.post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" });
  const t0 = Date.now() - 5 * HOUR;
  const at = (minutes: number) => new Date(t0 + minutes * 60_000).toISOString();
  const track = async (ua: string, body: Record<string, unknown>) => {
    const res = await a.post(
      "/api/events",
      { projectKey: a.publicKey, ...body },
      { as: "none", headers: { "user-agent": ua } },
    );
    expect(res.status).toBe(200);
  };
  const newsletter = `${SHOP}/pricing?utm_source=newsletter&utm_medium=email&utm_campaign=spring`;
  await track(IPHONE, { type: "pageview", visitorId: "phone", url: newsletter, timestamp: at(0) });
  await track(IPHONE, { type: "pageview", visitorId: "phone", url: `${SHOP}/checkout`, timestamp: at(2) });
  await track(IPHONE, {
    type: "purchase",
    visitorId: "phone",
    url: `${SHOP}/thanks`,
    data: { revenue: 40 },
    timestamp: at(3),
  });
  await track(WINDOWS_CHROME, {
    type: "pageview",
    visitorId: "laptop",
    url: `${SHOP}/`,
    referrer: "https://www.google.com/search?q=shop",
    timestamp: at(10),
  });
  await track(WINDOWS_CHROME, {
    type: "pageview",
    visitorId: "laptop",
    url: `${SHOP}/pricing`,
    timestamp: at(11),
  });
  await track(MAC_FIREFOX, {
    type: "pageview",
    visitorId: "mac",
    url: `${SHOP}/pricing`,
    referrer: "https://news.ycombinator.com/item?id=1",
    timestamp: at(20),
  });
  await track(GOOGLEBOT, {
    type: "pageview",
    visitorId: "crawler",
    url: `${SHOP}/pricing`,
    timestamp: at(21),
  });
  const server = await a.post(
    "/api/events",
    {
      projectKey: a.publicKey,
      userId: "L1",
      events: [{ type: "$revenue", url: `${SHOP}/billing`, data: { revenue: 25 }, timestamp: at(30) }],
    },
    { as: "none", headers: { "user-agent": WINDOWS_CHROME } },
  );
  expect(server.body).toMatchObject({ received: 1 });
}

const rowsOf = async (a: Tenant, query: string): Promise<Record<string, Omit<Row, "key">>> => {
  const res = await a.get<{ by: string; rows: Row[] }>(`/api/analytics/breakdown?period=7d&${query}`);
  expect(res.status).toBe(200);
  return Object.fromEntries(res.body.rows.map(({ key, ...r }) => [key, r]));
};
/**
 * A row: the traffic (visitors), conversions and revenue, and the rate's basis — the visitors whose
 * person's first touch had the value (by default the row's visitors) and those of them who converted.
 */
const r = (
  visitors: number,
  conversions: number,
  revenue: number,
  [firstTouchVisitors, convertedVisitors]: [number, number] = [visitors, 0],
) => ({
  visitors,
  conversions,
  firstTouchVisitors,
  convertedVisitors,
  conversionRate:
    firstTouchVisitors > 0 ? Math.round((convertedVisitors / firstTouchVisitors) * 1e6) / 1e6 : 0,
  revenue,
});

describe("GET /api/analytics/breakdown", () => {
  let a: Tenant;
  beforeAll(async () => {
    a = await t.tenant();
    await seed(a);
  });

  it("counts visitors by their session's values and conversions by the first touch's (hand-computed)", async () => {
    expect(await rowsOf(a, "by=device")).toEqual({
      desktop: r(2, 0, 0),
      mobile: r(1, 1, 40, [1, 1]),
      "(none)": r(0, 1, 25),
    });
    expect(await rowsOf(a, "by=landing_page")).toEqual({
      [`${SHOP}/pricing`]: r(2, 1, 40, [2, 1]),
      [`${SHOP}/`]: r(1, 0, 0),
      "(none)": r(0, 1, 25),
    });
    expect(await rowsOf(a, "by=campaign")).toEqual({ "(none)": r(2, 1, 25), spring: r(1, 1, 40, [1, 1]) });
    expect(await rowsOf(a, "by=source")).toEqual({
      newsletter: r(1, 1, 40, [1, 1]),
      google: r(1, 0, 0),
      "hacker news": r(1, 0, 0),
      "(none)": r(0, 1, 25),
    });
    expect(await rowsOf(a, "by=referrer_domain")).toEqual({
      "(none)": r(1, 2, 65, [1, 1]),
      "google.com": r(1, 0, 0),
      "news.ycombinator.com": r(1, 0, 0),
    });
    // Every sender of a type counts, the server's synthetic visitor `lead:L1` included; a type's
    // rate is its senders who converted (the phone, and L1 by its revenue) over its senders.
    expect(await rowsOf(a, "by=event_type")).toEqual({
      pageview: r(3, 0, 0, [3, 1]),
      purchase: r(1, 1, 40, [1, 1]),
      $revenue: r(1, 1, 25, [1, 1]),
    });
    const browsers = await rowsOf(a, "by=browser");
    expect(browsers).toEqual({
      [parseUserAgent(IPHONE).browser!]: r(1, 1, 40, [1, 1]),
      Chrome: r(1, 0, 0),
      Firefox: r(1, 0, 0),
      "(none)": r(0, 1, 25),
    });
    const os = await rowsOf(a, "by=os");
    expect(os.iOS).toEqual(r(1, 1, 40, [1, 1]));
    expect(os.Windows).toEqual(r(1, 0, 0));
    expect(os[parseUserAgent(MAC_FIREFOX).os!]).toEqual(r(1, 0, 0));
  });

  it("by channel gives the summary's channels, with revenue", async () => {
    const summary = await a.get<{
      topChannels: { channel: string; visitors: number; conversions: number }[];
    }>("/api/analytics/summary?period=7d");
    const channels = await rowsOf(a, "by=channel");
    for (const c of summary.body.topChannels) {
      expect(channels[c.channel]).toMatchObject({ visitors: c.visitors, conversions: c.conversions });
    }
    expect(channels).toEqual({
      email: r(1, 1, 40, [1, 1]),
      organic_search: r(1, 0, 0),
      organic_social: r(1, 0, 0),
      unattributed: r(0, 1, 25),
    });
  });

  it("sorts by visitors, then conversions, and keeps at most `limit` rows", async () => {
    const res = await a.get<{ rows: Row[] }>("/api/analytics/breakdown?by=event_type&period=7d&limit=2");
    expect(res.body.rows.map((x) => x.key)).toEqual(["pageview", "$revenue"]);
  });

  it("takes custom periods; a period without the events is empty", async () => {
    const res = await a.get<{ rows: Row[]; period: unknown }>(
      "/api/analytics/breakdown?by=device&from=2020-01-01&to=2020-01-31",
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ rows: [], period: { from: "2020-01-01", to: "2020-01-31" } });
  });

  it("refuses an unknown dimension, a missing one and a bad limit with 400", async () => {
    for (const q of [
      "by=colour",
      "period=7d",
      "by=device&limit=0",
      "by=device&limit=101",
      "by=os&period=1y",
    ]) {
      const res = await a.get<{ code: string; error: string }>(`/api/analytics/breakdown?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
      expect(res.body.error, q).toMatch(/^query(string)?\.(by|limit|period) /);
    }
    const colour = await a.get<{ error: string }>("/api/analytics/breakdown?by=colour");
    expect(colour.body.error).toBe(
      "querystring.by must be one of channel, source, campaign, landing_page, referrer_domain, device, browser, os, event_type",
    );
  });

  it("is a project's own: another workspace sees nothing of it", async () => {
    const b = await t.tenant();
    const res = await b.get<{ rows: Row[] }>("/api/analytics/breakdown?by=device&period=7d");
    expect(res.body.rows).toEqual([]);
  });
});

describe("breakdown rollups from committed events", () => {
  it("a session continuing after a restart (not started in this batch) adds no landing page", async () => {
    const a = await t.tenant();
    const s = { projectId: a.projectId, workspaceId: a.workspaceId };
    const now = Date.now() - HOUR;
    // Session s0 started before a restart; this processor sees only its later events.
    await commitEvents(t.app, [
      committed(s, {
        visitorId: "v",
        sessionId: "s0",
        url: `${SHOP}/later`,
        timestamp: now,
        sessionStarted: false,
      }),
      committed(s, { visitorId: "w", sessionId: "s1", url: `${SHOP}/later`, timestamp: now }),
      committed(s, {
        visitorId: "w",
        sessionId: "s1",
        url: `${SHOP}/other`,
        timestamp: now + 60_000,
        sessionStarted: false,
      }),
    ]);
    // Visitor v's only session started before the restart: its first touch has no landing page.
    expect(await rowsOf(a, "by=landing_page")).toEqual({
      [`${SHOP}/later`]: r(1, 0, 0),
      "(none)": r(0, 0, 0, [1, 0]),
    });
    expect(await rowsOf(a, "by=event_type")).toEqual({ pageview: r(2, 0, 0) });
  });

  it("a session whose later event comes first in the batch keeps the dimensions of the event that started it", async () => {
    const a = await t.tenant();
    const s = { projectId: a.projectId, workspaceId: a.workspaceId };
    const now = Date.now() - HOUR;
    // The click (which started the session) arrived before the pageview a minute earlier.
    await commitEvents(t.app, [
      committed(s, {
        visitorId: "v",
        sessionId: "s-late",
        type: "click",
        url: `${SHOP}/landing?utm_source=google`,
        timestamp: now + 60_000,
        source: "google",
        sessionStarted: true,
      }),
      committed(s, {
        visitorId: "v",
        sessionId: "s-late",
        url: `${SHOP}/landing?utm_source=google`,
        timestamp: now,
        source: "google",
        sessionStarted: false,
      }),
    ]);
    expect(await rowsOf(a, "by=source")).toEqual({ google: r(1, 0, 0) });
    const row = await t.app.db
      .selectFrom("analytics_touchpoints")
      .select(["ts", "source", "landing_page"])
      .where("project_id", "=", a.projectId)
      .executeTakeFirstOrThrow();
    expect({ ...row, ts: Number(row.ts) }).toEqual({
      ts: now,
      source: "google",
      landing_page: `${SHOP}/landing`,
    });
  });

  it("full weeks are read from the weekly rows: the same figures as from the days", async () => {
    const a = await t.tenant();
    await a.post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" });
    const s = { projectId: a.projectId, workspaceId: a.workspaceId };
    // 14 days ago lies in a Monday-to-Sunday week wholly inside the last 30 days.
    const at = Math.floor(Date.now() / 86_400_000 - 14) * 86_400_000 + 12 * HOUR;
    const phone = { userAgent: IPHONE, url: `${SHOP}/pricing` };
    await commitEvents(t.app, [
      committed(s, { visitorId: "p", sessionId: "sp", timestamp: at, ...phone }),
      committed(s, {
        visitorId: "p",
        sessionId: "sp",
        timestamp: at + 60_000,
        sessionStarted: false,
        type: "purchase",
        data: { revenue: 12.5 },
      }),
      committed(s, { visitorId: "d", sessionId: "sd", timestamp: at, userAgent: WINDOWS_CHROME }),
    ]);
    const day = new Date(at).toISOString().slice(0, 10);
    const expected = { mobile: r(1, 1, 12.5, [1, 1]), desktop: r(1, 0, 0) };
    const keyed = (rows: Row[]) => Object.fromEntries(rows.map(({ key, ...x }) => [key, x]));
    const oneDay = await a.get<{ rows: Row[] }>(`/api/analytics/breakdown?by=device&from=${day}&to=${day}`);
    expect(keyed(oneDay.body.rows)).toEqual(expected);
    const thirty = await a.get<{ rows: Row[] }>("/api/analytics/breakdown?by=device&period=30d");
    expect(keyed(thirty.body.rows)).toEqual(expected);
    const types = await a.get<{ rows: Row[] }>("/api/analytics/breakdown?by=event_type&period=90d");
    expect(types.body.rows).toEqual([
      { key: "pageview", ...r(2, 0, 0, [2, 1]) },
      { key: "purchase", ...r(1, 1, 12.5, [1, 1]) },
    ]);
  });
});
