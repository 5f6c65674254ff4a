import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Analytics } from "@segment/analytics-node";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, newVisitor, startHarness, until } from "./harness.js";

/**
 * Segment's browser library (@segment/analytics-next, its UMD bundle as a site ships it) pointed
 * at Lift by `cdnURL` and the project's public key: it loads its settings from Lift and sends every
 * call there, loading nothing from Segment. Then the same person converts through Segment's Node
 * SDK, and Lift's own API tells the story: one lead, its first touch and channel, the conversion,
 * the revenue and its attribution.
 */
const BUNDLE = path.join(
  path.dirname(createRequire(import.meta.url).resolve("@segment/analytics-next/package.json")),
  "dist/umd/index.js",
);

let h: Harness;
beforeAll(async () => {
  const bundle = readFileSync(BUNDLE);
  h = await startHarness((req, res, harness) => {
    const url = new URL(req.url ?? "/", "http://site");
    if (url.pathname === "/analytics-next.js") {
      res.writeHead(200, { "content-type": "text/javascript" }).end(bundle);
      return;
    }
    // The site's own page: analytics.js as documented, pointed at Lift (docs/segment.md).
    const options = url.searchParams.get("batching")
      ? `{ integrations: { "Segment.io": { deliveryStrategy: { strategy: "batching", config: { size: 3, timeout: 200 } } } } }`
      : "{}";
    res.writeHead(200, { "content-type": "text/html" }).end(`<!doctype html><html><head>
      <script src="/analytics-next.js"></script>
      <script>
        window.analytics = AnalyticsNext.AnalyticsBrowser.load(
          { writeKey: "${harness.tenant.publicKey}", cdnURL: "${harness.api}" }, ${options});
        window.pageview = analytics.page();
      </script></head><body><h1>Shop</h1></body></html>`);
  });
}, 60_000);
afterAll(async () => h?.close());

/** Every request the page made, by URL. */
function record(page: Page): string[] {
  const urls: string[] = [];
  page.on("request", (r) => urls.push(`${r.method()} ${r.url()}`));
  return urls;
}

const stored = async (visitorId: string) =>
  ((await h.tenant.get(`/api/identity?visitorId=${encodeURIComponent(visitorId)}`)).body?.events ?? []) as {
    type: string;
  }[];

describe("@segment/analytics-next in Chromium against Lift", () => {
  it("a UTM visitor identified in the browser converts server-side: one lead with its first touch, channel, conversion, revenue and attribution", async () => {
    const a = h.tenant;
    expect(
      (await a.post("/api/conversion-goals", { name: "Order", eventType: "Order Completed" })).status,
    ).toBe(201);
    const context = await newVisitor(h);
    const page = await context.newPage();
    const requests = record(page);
    await page.goto(`${h.siteUrl}/?utm_source=google&utm_medium=cpc&utm_campaign=spring`);
    await page.evaluate(() => (window as any).pageview);
    const anonymousId: string = await page.evaluate(async () =>
      (await (window as any).analytics.user()).anonymousId(),
    );
    await until(async () => (await stored(anonymousId)).length === 1, "the pageview");
    // Identified in the browser (public key: traits only fill), then it signs up.
    await page.evaluate(() =>
      (window as any).analytics.identify("user-42", { plan: "pro", company: "Acme" }),
    );
    await page.evaluate(() => (window as any).analytics.track("Signed Up", { method: "email" }));
    await context.close();

    // The purchase, recorded by the team's backend with Segment's Node SDK and the secret key.
    const server = new Analytics({ writeKey: a.apiKey, host: h.api, path: "/v1/batch", flushInterval: 50 });
    server.identify({ userId: "user-42", traits: { plan: "business" } });
    server.track({
      userId: "user-42",
      event: "Order Completed",
      properties: { orderId: "o-1", revenue: 99, currency: "usd" },
    });
    await server.closeAndFlush();

    // Nothing from Segment: the settings and every call went to Lift, nothing else was loaded.
    const origins = new Set(requests.map((r) => new URL(r.split(" ")[1]!).origin));
    expect([...origins].sort()).toEqual([h.api, h.siteUrl].sort());
    const toLift = requests.filter((r) => r.includes(h.api)).map((r) => r.replace(h.api, ""));
    expect(toLift).toContain(`GET /v1/projects/${a.publicKey}/settings`);
    expect(toLift.filter((r) => r.startsWith("POST")).sort()).toEqual([
      "POST /v1/i",
      "POST /v1/p",
      "POST /v1/t",
    ]);
    expect(requests.some((r) => r.includes("/analytics-next/bundles/"))).toBe(false);

    const lead = (await a.get("/api/leads/user-42")).body;
    expect(lead.visitors.map((v: { visitorId: string }) => v.visitorId).sort()).toEqual(
      [anonymousId, "lead:user-42"].sort(),
    );
    // The server's secret key overwrote plan; the browser's company stays.
    expect(lead.properties).toEqual({ plan: "business", company: "Acme" });
    expect(lead.attribution).toMatchObject({
      channel: "paid_search",
      source: "google",
      landingPage: `${h.siteUrl}/`,
    });
    expect(lead).toMatchObject({ conversions: 1, revenue: 99 });
    const journey = (await a.get(`/api/identity?visitorId=${anonymousId}`)).body;
    expect(journey.leadId).toBe("user-42");
    expect(journey.events.map((e: { type: string }) => e.type)).toEqual([
      "pageview",
      "$identify",
      "Signed Up",
      "$identify",
      "Order Completed",
    ]);

    const summary = (await a.get("/api/analytics/summary?period=7d")).body;
    expect(summary).toMatchObject({ visitors: 1, leads: 1, conversions: 1 });
    expect(summary.topChannels).toEqual([
      {
        channel: "paid_search",
        visitors: 1,
        conversions: 1,
        revenue: 99,
        firstTouchVisitors: 1,
        convertedVisitors: 1,
        conversionRate: 1,
      },
    ]);
    for (const model of ["first_touch", "last_touch", "position_based"]) {
      const attribution = (await a.get(`/api/attribution/summary?model=${model}&period=7d`)).body;
      expect(attribution.channels, model).toEqual([
        { channel: "paid_search", creditedConversions: 1, revenue: 99 },
      ]);
    }
  });

  it("analytics.js's batching delivery posts to /v1/b, each call stored once", async () => {
    const context = await newVisitor(h);
    const page = await context.newPage();
    const requests = record(page);
    await page.goto(`${h.siteUrl}/pricing?batching=1`);
    const anonymousId: string = await page.evaluate(async () =>
      (await (window as any).analytics.user()).anonymousId(),
    );
    await page.evaluate(() => {
      const analytics = (window as any).analytics;
      analytics.track("Viewed Plan", { plan: "pro" });
      analytics.track("Viewed Plan", { plan: "team" });
    });
    await until(async () => (await stored(anonymousId)).length === 3, "the batched calls");
    // Chromium reports a request to the test over CDP, which on a loaded machine can arrive after
    // the server has stored what it carried.
    await until(async () => requests.some((r) => r.startsWith("POST")), "the batch request seen by the test");
    // Every call went in a batch (how many batches depends on analytics.js's flush timer).
    const posts = requests.filter((r) => r.startsWith("POST")).map((r) => new URL(r.split(" ")[1]!).pathname);
    expect(posts.length).toBeGreaterThanOrEqual(1);
    expect(new Set(posts)).toEqual(new Set(["/v1/b"]));
    const types = (await stored(anonymousId)).map((e) => e.type);
    expect(types).toEqual(["pageview", "Viewed Plan", "Viewed Plan"]);
    await context.close();
  });
});
