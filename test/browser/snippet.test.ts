import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getLead } from "../../src/modules/identity/leads.js";
import { startTestApp, type Tenant, type TestApp } from "../helpers/app.js";

const CHROMIUM = "/usr/bin/chromium";
// Headless Chrome announces itself as "HeadlessChrome", which the events module rightly flags as
// a bot (and experiments ignore bots); the page is driven with an ordinary desktop user agent.
const USER_AGENT =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const RED = "rgb(255, 0, 0)";
const BLUE = "rgb(0, 0, 255)";

let t: TestApp;
let browser: Browser;
let site: Server;
let api = "";
let siteUrl = "";
let a: Tenant;
let experimentId = "";
let firstVisitor = "";

/** Polls `fn` until it returns a truthy value or the deadline passes (events land asynchronously). */
async function until<T>(
  fn: () => Promise<T | undefined | null | false>,
  what: string,
  ms = 10_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  t = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  api = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  a = await t.tenant();
  await a.post("/api/conversion-goals", { name: "Signup", eventType: "form_submit" });
  const e = await a.post("/api/experiments", {
    name: "Headline colour",
    targetUrl: "/pricing*",
    variants: [
      { name: "blue", css: `h1{color:${BLUE}}` },
      { name: "red", css: `h1{color:${RED}}`, js: "document.body.setAttribute('data-variant-js','red')" },
    ],
  });
  experimentId = e.body.id;
  await a.patch("/api/experiments", { id: experimentId, status: "running" });

  // The customer's site: another origin (localhost vs 127.0.0.1), as in production.
  site = createServer((req, res) => {
    res.setHeader("content-type", "text/html; charset=utf-8");
    res.end(`<!doctype html><html><head><title>Pricing</title>
<script src="${api}/api/svc-js?key=${a.publicKey}"></script></head>
<body><h1>Pricing</h1><a id="plans" href="#plans">Plans</a>
<form id="signup" onsubmit="event.preventDefault()">
<input type="email" name="email"><button type="submit" id="go">Sign up</button></form>
<p>${req.url}</p></body></html>`);
  });
  await new Promise<void>((r) => site.listen(0, "localhost", r));
  siteUrl = `http://localhost:${(site.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
    ],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => site?.close(r));
  await t?.close();
});

describe("browser snippet (real Chromium)", () => {
  it("applies the variant, keeps it on reload, stores pageviews and one exposure, and stitches a form email", async () => {
    const context = await browser.newContext({ userAgent: USER_AGENT });
    const page = await context.newPage();
    await page.goto(`${siteUrl}/pricing`);
    await page.waitForFunction(
      () => (window as any).svc?.getVariant && document.querySelector("style[data-svc-experiment]"),
    );
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
      (await a.get(`/api/identity?visitorId=${encodeURIComponent(visitorId)}`)).body;
    const stored = await until(async () => {
      const j = await journey();
      const types = (j?.events ?? []).map((e: { type: string }) => e.type);
      return types.filter((x: string) => x === "pageview").length >= 3 && types.includes("click")
        ? types
        : null;
    }, "pageviews and click");
    expect(stored.filter((x: string) => x === "$exposure")).toHaveLength(1);
    const results = await until(async () => {
      const e = (await a.get(`/api/experiments/${experimentId}`)).body;
      return e.results.totalExposures === 1 ? e.results : null;
    }, "exposure counter");
    expect(results.variants.find((v: { name: string }) => v.name === variant).exposures).toBe(1);

    await page.fill("input[name=email]", "  Ada@Example.com ");
    await page.click("#go");
    const linked = await until(async () => {
      const j = await journey();
      return j?.leadId && j.events.some((e: { type: string }) => e.type === "form_submit") ? j : null;
    }, "stitched lead");
    const lead = await getLead(t.app.db, { id: a.projectId, workspaceId: a.workspaceId }, linked.leadId);
    expect(lead.email).toBe("ada@example.com");
    // The form submit after exposure is a conversion of the experiment's (default) goals.
    const converted = await until(async () => {
      const e = (await a.get(`/api/experiments/${experimentId}`)).body;
      return e.results.totalConversions === 1 ? e : null;
    }, "conversion");
    expect(converted.results.variants.find((v: { name: string }) => v.name === variant).conversions).toBe(1);
    await context.close();
  }, 120_000);

  it("gives a second visitor an id of their own and reports window.svc.track events", async () => {
    const context = await browser.newContext({ userAgent: USER_AGENT });
    const page = await context.newPage();
    await page.goto(`${siteUrl}/pricing`);
    await page.waitForFunction(() => (window as any).svc?.visitorId);
    const visitorId = await page.evaluate(() => {
      (window as any).svc.track("video_played", { seconds: 12 });
      return (window as any).svc.visitorId as string;
    });
    expect(visitorId).not.toBe(firstVisitor);
    const events = await until(async () => {
      const j = (await a.get(`/api/identity?visitorId=${encodeURIComponent(visitorId)}`)).body;
      const types = (j?.events ?? []).map((e: { type: string }) => e.type);
      return types.includes("video_played") ? types : null;
    }, "custom event");
    expect(events).toContain("pageview");
    await context.close();
  }, 60_000);
});
