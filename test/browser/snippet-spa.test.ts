/**
 * SPA navigation in real Chromium: a tiny router renders routes on pushState/popstate. Leaving a
 * route the experiment no longer matches removes its CSS; entering a matching route applies the
 * CSS at once and runs the variant script once, after the route has rendered.
 */
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BLACK, BLUE, type Harness, newVisitor, RED, startHarness, storedTypes, until } from "./harness.js";

let h: Harness;
let experimentId = "";

// Routes render synchronously after pushState (most routers), except /app/offers/deals, which
// renders in a later task through a MessageChannel, as React's scheduler does.
const APP = `<h1>Shop</h1>
<nav><a data-link id="to-home" href="/app/home">Home</a> <a data-link id="to-offers" href="/app/offers">Offers</a>
<a data-link id="to-deals" href="/app/offers/deals">Deals</a></nav><main id="view"></main>
<script>
function show(html) { document.getElementById("view").innerHTML = html; }
function route() {
  var p = location.pathname;
  if (p.indexOf("/app/offers/deals") === 0) {
    var ch = new MessageChannel();
    ch.port1.onmessage = function () { show('<p class="offer">Deals</p>'); };
    return ch.port2.postMessage(0);
  }
  show(p.indexOf("/app/offers") === 0 ? '<p class="offer">10% off</p>' : '<p class="home">Welcome</p>');
}
document.addEventListener("click", function (e) {
  var a = e.target.closest("a[data-link]");
  if (!a) return;
  e.preventDefault();
  history.pushState({}, "", a.href);
  route();
});
addEventListener("popstate", route);
route();
</script>`;

// Each variant's script counts its runs and marks the rendered offer (it throws when run before
// the route has rendered, so its mark is then missing).
const variantJs = (name: string) =>
  `window.__runs=(window.__runs||0)+1;document.querySelector("#view .offer").setAttribute("data-variant","${name}")`;

beforeAll(async () => {
  h = await startHarness((_req, res, harness) => {
    res.setHeader("content-type", "text/html; charset=utf-8");
    res.end(
      `<!doctype html><html><head><title>Shop</title>${harness.scriptTag}</head><body>${APP}</body></html>`,
    );
  });
  const e = await h.tenant.post("/api/experiments", {
    name: "Offers headline",
    targetUrl: "/app/offers*",
    variants: [
      { name: "blue", css: `h1{color:${BLUE}}`, js: variantJs("blue") },
      { name: "red", css: `h1{color:${RED}}`, js: variantJs("red") },
    ],
  });
  experimentId = e.body.id;
  await h.tenant.patch("/api/experiments", { id: experimentId, status: "running" });
}, 60_000);

afterAll(async () => {
  await h?.close();
});

const headline = (page: Page) => page.$eval("h1", (el) => getComputedStyle(el).color);
const variantStyles = (page: Page) => page.$$("style[data-svc-experiment]");
/** Waits for the variant script's mark on the rendered offer; returns the mark and the run count. */
async function marked(page: Page): Promise<{ mark: string; runs: number }> {
  const el = await page.waitForSelector("#view .offer[data-variant]", { timeout: 10_000 });
  return {
    mark: (await el.getAttribute("data-variant"))!,
    runs: await page.evaluate(() => (window as any).__runs),
  };
}

describe("browser snippet on a single-page app (real Chromium)", () => {
  it("applies variants on route entry after the route rendered, once, and removes them on leaving", async () => {
    const context = await newVisitor(h);
    const page = await context.newPage();
    await page.goto(`${h.siteUrl}/app/home`);
    await page.evaluate(() => (window as any).svc.ready);
    expect(await page.evaluate((id) => (window as any).svc.getVariant(id), experimentId)).toBeNull();
    expect(await variantStyles(page)).toHaveLength(0);

    // pushState to a matching route: CSS at once, the script after the router rendered.
    await page.click("#to-offers");
    const first = await marked(page);
    const variant = await page.evaluate((id) => (window as any).svc.getVariant(id), experimentId);
    const colour = variant === "red" ? RED : BLUE;
    expect(first).toEqual({ mark: variant, runs: 1 });
    expect(await headline(page)).toBe(colour);

    // pushState to a route the experiment does not match: its CSS is gone.
    await page.click("#to-home");
    await page.waitForSelector("#view .home");
    expect(await variantStyles(page)).toHaveLength(0);
    expect(await headline(page)).toBe(BLACK);

    // Entering again (a router that renders in a later task): applied again, script run once more.
    await page.click("#to-deals");
    expect(await marked(page)).toEqual({ mark: variant, runs: 2 });
    expect(await headline(page)).toBe(colour);

    // popstate back and forward.
    await page.evaluate(() => history.back());
    await page.waitForSelector("#view .home");
    expect(await variantStyles(page)).toHaveLength(0);
    expect(await headline(page)).toBe(BLACK);
    await page.evaluate(() => history.forward());
    expect(await marked(page)).toEqual({ mark: variant, runs: 3 });
    expect(await headline(page)).toBe(colour);
    expect(await variantStyles(page)).toHaveLength(1);

    // One exposure for the visitor, one pageview per URL change.
    const visitorId = await page.evaluate(() => (window as any).svc.visitorId as string);
    const types = await until(async () => {
      const t = await storedTypes(h, visitorId);
      return t.filter((x) => x === "pageview").length >= 6 && t.includes("$exposure") ? t : null;
    }, "pageviews and exposure");
    expect(types.filter((x) => x === "$exposure")).toHaveLength(1);
    expect(types.filter((x) => x === "pageview")).toHaveLength(6);

    // A page view landing on a matching route runs the script once after the app rendered.
    await page.goto(`${h.siteUrl}/app/offers`);
    expect(await marked(page)).toEqual({ mark: variant, runs: 1 });
    expect(await headline(page)).toBe(colour);
    await context.close();
  }, 120_000);
});
