import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getLead } from "../../src/modules/identity/leads.js";
import { BLUE, type Harness, newVisitor, RED, startHarness, until } from "./harness.js";

let h: Harness;
let experimentId = "";
let firstVisitor = "";

beforeAll(async () => {
  h = await startHarness((req, res, harness) => {
    res.setHeader("content-type", "text/html; charset=utf-8");
    res.end(`<!doctype html><html><head><title>Pricing</title>${harness.scriptTag}</head>
<body><h1>Pricing</h1><a id="plans" href="#plans">Plans</a>
<form id="signup" onsubmit="event.preventDefault()">
<input type="email" name="email"><button type="submit" id="go">Sign up</button></form>
<p>${req.url}</p></body></html>`);
  });
  await h.tenant.post("/api/conversion-goals", { name: "Signup", eventType: "form_submit" });
  const e = await h.tenant.post("/api/experiments", {
    name: "Headline colour",
    targetUrl: "/pricing*",
    variants: [
      { name: "blue", css: `h1{color:${BLUE}}` },
      { name: "red", css: `h1{color:${RED}}`, js: "document.body.setAttribute('data-variant-js','red')" },
    ],
  });
  experimentId = e.body.id;
  await h.tenant.patch("/api/experiments", { id: experimentId, status: "running" });
}, 60_000);

afterAll(async () => {
  await h?.close();
});

/**
 * Opens the page until a page view applies the variant: on a loaded machine the first answer can
 * come after the anti-flicker cap, and then only the next page view (from the cached list) has it.
 */
async function openWithVariant(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.waitForFunction(() => localStorage.getItem("svc_active"));
  if (!(await page.$("style[data-svc-experiment]"))) await page.reload();
  await page.waitForFunction(() => document.querySelector("style[data-svc-experiment]"));
}

describe("browser snippet (real Chromium)", () => {
  it("applies the variant, keeps it on reload, stores pageviews and one exposure, and stitches a form email", async () => {
    const context = await newVisitor(h);
    const page = await context.newPage();
    await openWithVariant(page, `${h.siteUrl}/pricing`);
    const variant = await page.evaluate((id) => (window as any).svc.getVariant(id), experimentId);
    expect(["blue", "red"]).toContain(variant);
    const colour = await page.$eval("h1", (h) => getComputedStyle(h).color);
    expect(colour).toBe(variant === "red" ? RED : BLUE);
    // Anti-flicker style is gone once variants are applied.
    expect(await page.$eval("body", (b) => getComputedStyle(b).opacity)).toBe("1");
    const visitorId = await page.evaluate(() => (window as any).svc.visitorId as string);
    firstVisitor = visitorId;
    // The variant's js ran too (only the red variant has one).
    expect(await page.$eval("body", (b) => b.getAttribute("data-variant-js"))).toBe(
      variant === "red" ? "red" : null,
    );
    expect(await context.cookies()).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "svc_vid", value: visitorId })]),
    );

    await page.reload();
    await page.waitForFunction(() => document.querySelector("style[data-svc-experiment]"));
    expect(await page.evaluate((id) => (window as any).svc.getVariant(id), experimentId)).toBe(variant);
    expect(await page.evaluate(() => (window as any).svc.visitorId)).toBe(visitorId);
    expect(await page.$eval("h1", (h) => getComputedStyle(h).color)).toBe(colour);

    // SPA navigation counts as a pageview.
    await page.evaluate(() => history.pushState({}, "", "/pricing/annual"));
    await page.click("#plans");

    const journey = async () =>
      (await h.tenant.get(`/api/identity?visitorId=${encodeURIComponent(visitorId)}`)).body;
    const stored = await until(async () => {
      const j = await journey();
      const types = (j?.events ?? []).map((e: { type: string }) => e.type);
      return types.filter((x: string) => x === "pageview").length >= 3 && types.includes("click")
        ? types
        : null;
    }, "pageviews and click");
    expect(stored.filter((x: string) => x === "$exposure")).toHaveLength(1);
    const results = await until(async () => {
      const e = (await h.tenant.get(`/api/experiments/${experimentId}`)).body;
      return e.results.totalExposures === 1 ? e.results : null;
    }, "exposure counter");
    expect(results.variants.find((v: { name: string }) => v.name === variant).exposures).toBe(1);

    await page.fill("input[name=email]", "  Ada@Example.com ");
    await page.click("#go");
    const linked = await until(async () => {
      const j = await journey();
      return j?.leadId && j.events.some((e: { type: string }) => e.type === "form_submit") ? j : null;
    }, "stitched lead");
    const lead = await getLead(
      h.t.app.db,
      { id: h.tenant.projectId, workspaceId: h.tenant.workspaceId },
      linked.leadId,
    );
    expect(lead.email).toBe("ada@example.com");
    // The form submit after exposure is a conversion of the experiment's (default) goals.
    const converted = await until(async () => {
      const e = (await h.tenant.get(`/api/experiments/${experimentId}`)).body;
      return e.results.totalConversions === 1 ? e : null;
    }, "conversion");
    expect(converted.results.variants.find((v: { name: string }) => v.name === variant).conversions).toBe(1);
    await context.close();
  }, 120_000);

  it("gives a second visitor an id of their own and reports window.svc.track events", async () => {
    const context = await newVisitor(h);
    const page = await context.newPage();
    await page.goto(`${h.siteUrl}/pricing`);
    await page.waitForFunction(() => (window as any).svc?.visitorId);
    const visitorId = await page.evaluate(() => {
      (window as any).svc.track("video_played", { seconds: 12 });
      return (window as any).svc.visitorId as string;
    });
    expect(visitorId).not.toBe(firstVisitor);
    const events = await until(async () => {
      const j = (await h.tenant.get(`/api/identity?visitorId=${encodeURIComponent(visitorId)}`)).body;
      const types = (j?.events ?? []).map((e: { type: string }) => e.type);
      return types.includes("video_played") ? types : null;
    }, "custom event");
    expect(events).toContain("pageview");
    await context.close();
  }, 60_000);
});
