import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storedEvents } from "../../src/modules/events/segment/segment.testing.js";
import { type Harness, newVisitor, startHarness, until } from "./harness.js";

/**
 * RudderStack's browser SDK v3 (@rudderstack/analytics-js, its bundled UMD build as a site ships
 * it: the plugins inside, nothing from RudderStack's CDN) pointed at Lift by `dataPlaneUrl` and the
 * project's public key, with its source configuration given by the page (`getSourceConfig`), so
 * nothing is asked of RudderStack's control plane either (docs/segment.md). Its page, track and
 * identify land in Lift as Segment's do: the page is a visit with its session and channel.
 */
const BUNDLE = path.join(
  path.dirname(createRequire(import.meta.url).resolve("@rudderstack/analytics-js/bundled")),
  "../umd/index.js",
);

let h: Harness;
beforeAll(async () => {
  const bundle = readFileSync(BUNDLE);
  h = await startHarness((req, res, harness) => {
    const url = new URL(req.url ?? "/", "http://site");
    if (url.pathname === "/rudder-analytics.js") {
      res.writeHead(200, { "content-type": "text/javascript" }).end(bundle);
      return;
    }
    if (url.pathname !== "/") {
      res.writeHead(204).end();
      return;
    }
    // The site's page, set up as docs/segment.md has it.
    res.writeHead(200, { "content-type": "text/html" }).end(`<!doctype html><html><head>
      <script src="/rudder-analytics.js"></script>
      <script>
        window.rudder = new rudderanalytics.RudderAnalytics();
        rudder.load("${harness.tenant.publicKey}", "${harness.api}", {
          getSourceConfig: () => ({
            source: {
              id: "lift", name: "Lift", enabled: true, destinations: [],
              config: { statsCollection: { errors: { enabled: false }, metrics: { enabled: false } } },
            },
          }),
        });
        rudder.page();
      </script></head><body><h1>Shop</h1></body></html>`);
  });
}, 60_000);
afterAll(async () => h?.close());

/** Every request the page made (method and URL), and its console errors. */
function record(page: Page): { requests: string[]; errors: string[] } {
  const requests: string[] = [];
  const errors: string[] = [];
  page.on("request", (r) => requests.push(`${r.method()} ${r.url()}`));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  return { requests, errors };
}

describe("@rudderstack/analytics-js v3 in Chromium against Lift", () => {
  it("page is a visit with its session and channel; track and identify follow on the same visitor and lead", async () => {
    const a = h.tenant;
    const context = await newVisitor(h);
    const page = await context.newPage();
    const { requests, errors } = record(page);
    await page.goto(`${h.siteUrl}/?utm_source=google&utm_medium=cpc&utm_campaign=spring`);
    const view = await until(
      async () => (await storedEvents(h.t, a)).find((e) => e.type === "pageview"),
      "the pageview",
    );
    const anonymousId: string = await page.evaluate(() => (window as any).rudder.getAnonymousId());
    expect(view).toMatchObject({
      visitorId: anonymousId,
      channel: "paid_search",
      server: false,
      isBot: false,
    });
    expect(view.url).toContain("utm_source=google");
    expect(view.sessionId).not.toBe("");

    await page.evaluate(() => (window as any).rudder.track("Signed Up", { method: "email" }));
    await page.evaluate(() => (window as any).rudder.identify("user-7", { plan: "pro" }));
    await until(async () => {
      const types = (await storedEvents(h.t, a)).map((e) => e.type);
      return types.includes("Signed Up") && types.includes("$identify");
    }, "the track and the identify");
    const events = await storedEvents(h.t, a);
    expect(events.find((e) => e.type === "Signed Up")).toMatchObject({
      visitorId: anonymousId,
      data: { method: "email" },
    });
    const lead = (await a.get("/api/leads/user-7")).body;
    expect(lead.visitors.map((v: { visitorId: string }) => v.visitorId)).toContain(anonymousId);
    expect(lead.attribution).toMatchObject({ channel: "paid_search", source: "google" });
    // RudderStack's v3 sends an identify's traits in context.traits, not at the top level.
    expect(lead.properties).toMatchObject({ plan: "pro" });

    // Only the site and Lift were asked anything: no control plane, no plugin or polyfill CDN.
    const origins = new Set(requests.map((r) => new URL(r.split(" ")[1]!).origin));
    expect([...origins].sort()).toEqual([h.api, h.siteUrl].sort());
    const posts = requests.filter((r) => r.startsWith("POST")).map((r) => new URL(r.split(" ")[1]!).pathname);
    expect(new Set(posts)).toEqual(new Set(["/v1/page", "/v1/track", "/v1/identify"]));
    expect(errors).toEqual([]);
    await context.close();
  }, 20_000);

  it("a visit without a referrer is direct: the SDK's `$direct` referrer is no referring site", async () => {
    const context = await newVisitor(h);
    const page = await context.newPage();
    await page.goto(`${h.siteUrl}/`);
    const anonymousId: string = await page.evaluate(() => (window as any).rudder.getAnonymousId());
    const view = await until(
      async () => (await storedEvents(h.t, h.tenant)).find((e) => e.visitorId === anonymousId),
      "the pageview",
    );
    expect(view).toMatchObject({ type: "pageview", channel: "direct" });
    await context.close();
  }, 20_000);
});
