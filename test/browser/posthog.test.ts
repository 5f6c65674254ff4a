import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { storedEvents } from "../../src/modules/events/segment/segment.testing.js";
import { type Harness, newVisitor, until } from "./harness.js";
import { postHogInit, startPostHogSite } from "./posthog-site.js";

/**
 * PostHog's browser library (posthog-js, its full array bundle as a site ships it, served by the
 * site itself: nothing from PostHog's CDN) pointed at Lift by `api_host` and the project's public
 * key: it loads its remote config from Lift, sends its pageview, a custom event and identify there
 * with gzip-js, and Lift's own API shows the visit, its channel and the lead.
 */
let h: Harness;
beforeAll(async () => {
  h = await startPostHogSite(postHogInit, '<h1>Shop</h1><button id="buy">Buy</button>');
}, 60_000);
afterAll(async () => h?.close());

/**
 * Every request the page made to Lift (method and URL; a gzip body marked `gzip`), and the page's
 * console errors.
 */
function record(page: Page): { requests: string[]; errors: string[] } {
  const requests: string[] = [];
  const errors: string[] = [];
  page.on("request", (r) => {
    if (!r.url().startsWith(h.api)) return;
    const body = r.postDataBuffer();
    const gzip = body !== null && body[0] === 0x1f && body[1] === 0x8b;
    requests.push(`${r.method()} ${r.url().slice(h.api.length)}${gzip ? " gzip" : ""}`);
  });
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  return { requests, errors };
}

describe("posthog-js in Chromium against Lift", () => {
  it("the pageview is a visit with its channel, a custom event and identify link the visitor to a lead, with gzip-js", async () => {
    const a = h.tenant;
    const context = await newVisitor(h);
    const page = await context.newPage();
    const { requests, errors } = record(page);
    await page.goto(`${h.siteUrl}/?utm_source=newsletter&utm_medium=email&utm_campaign=launch`);
    const anonId: string = await page.evaluate(() => (window as any).posthog.get_distinct_id());
    const view = await until(
      async () => (await storedEvents(h.t, a)).find((e) => e.type === "pageview"),
      "the pageview",
    );
    expect(view).toMatchObject({ visitorId: anonId, channel: "email", server: false, isBot: false });
    expect(view.url).toContain("utm_source=newsletter");
    expect(view.sessionId).not.toBe("");

    // Initialised from Lift's remote config without an error; its flags asked of Lift's /flags
    // (test/browser/posthog-flags.test.ts), never of the legacy /decide.
    expect(requests.filter((r) => r.includes(`/array/${a.publicKey}/config`)).length).toBe(1);
    expect(requests.filter((r) => r.includes("/decide"))).toEqual([]);
    expect(errors).toEqual([]);

    await page.evaluate(() => (window as any).posthog.capture("Added To Cart", { sku: "A1" }));
    await page.evaluate(() => (window as any).posthog.identify("user-42", { plan: "pro" }));
    await until(async () => {
      const types = (await storedEvents(h.t, a)).map((e) => e.type);
      return types.includes("Added To Cart") && types.includes("$identify");
    }, "the custom event and identify");
    const events = await storedEvents(h.t, a);
    expect(events.find((e) => e.type === "Added To Cart")).toMatchObject({
      visitorId: anonId,
      data: { sku: "A1" },
    });
    // The next pageview is the lead's, on the same visitor and its session.
    await page.evaluate(() => (window as any).posthog.capture("$pageview"));
    const next = await until(
      async () => (await storedEvents(h.t, a)).find((e) => e.type === "pageview" && e.leadId === "user-42"),
      "the identified pageview",
    );
    expect(next).toMatchObject({ visitorId: anonId, sessionId: view.sessionId });
    const lead = (await a.get("/api/leads/user-42")).body;
    expect(lead.properties).toMatchObject({ plan: "pro" });
    expect(lead.visitors.map((v: { visitorId: string }) => v.visitorId)).toContain(anonId);

    // The remote config offered gzip-js: the events went gzip-compressed. posthog-js 1.449 sends
    // them as text/plain with the query's compression=gzip-js taken out, so Lift knows gzip by its
    // magic bytes.
    const posts = requests.filter((r) => r.startsWith("POST /e/"));
    expect(posts.filter((r) => r.endsWith(" gzip")).length).toBeGreaterThanOrEqual(2);
    // Flags are asked on load and again on identify: no retry loop.
    expect(requests.filter((r) => r.includes("/flags")).length).toBeLessThanOrEqual(2);
    await context.close();
  }, 20_000);
});
