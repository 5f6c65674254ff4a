import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SITE, generate } from "../analytics/truth/dataset.js";
import { sendDataset } from "../analytics/truth/send.js";
import { periodOf } from "../analytics/truth/truth.js";
import { headlineOf, inPeriod, visitsOf } from "../analytics/truth/web-truth.js";
import { checkPage, type Dashboard, settled, signIn, startDashboard } from "./dashboard-harness.js";

let d: Dashboard;
beforeAll(async () => {
  d = await startDashboard();
}, 60_000);
afterAll(async () => d?.close());

const tile = (page: Page, label: string) =>
  page.locator(".tile", { has: page.locator(".tile-label", { hasText: new RegExp(`^${label}$`) }) });

describe("the web view in Chromium", () => {
  it("shows the truth's page views, and a clicked page row filters the view to the visits that saw it", async () => {
    const a = await d.t.tenant();
    const data = generate(53, Date.now(), 60);
    await sendDataset(a, data);
    const visits = inPeriod(visitsOf(data), periodOf(30, Date.now()));
    const all = headlineOf(visits);
    const pricing = `${SITE}/pricing`;
    // The page whatever its query string: a campaign's visits land on /pricing?utm_…
    const sawPricing = headlineOf(visits.filter((v) => v.urls.some((u) => u.split("?")[0] === pricing)));
    expect(sawPricing.pageviews).toBeLessThan(all.pageviews);
    expect(sawPricing.visits).toBeGreaterThan(visits.filter((v) => v.urls.includes(pricing)).length);
    const cpc = headlineOf(visits.filter((v) => v.values.utm_medium === "cpc"));
    expect(cpc.visits).toBeGreaterThan(0);
    // The API first: the engine has copied the dataset once it answers (the page then loads at once).
    const api = await a.post("/api/analytics/web", { period: "30d", lists: [] });
    expect(api.status).toBe(200);
    expect(api.body.headline.pageviews.value).toBe(all.pageviews);

    const { page, problems } = await d.open();
    await page.goto(`${d.base}/web?period=30d`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "Web", level: 1 }).waitFor();
    await settled(page);
    await tile(page, "Pageviews")
      .locator(".tile-value", { hasText: all.pageviews.toLocaleString("en-US") })
      .waitFor();
    await tile(page, "Visitors")
      .locator(".tile-value", { hasText: all.visitors.toLocaleString("en-US") })
      .waitFor();
    await page.getByRole("figure", { name: "Visitors and pageviews per day" }).waitFor();
    await checkPage(page, "web");

    const pages = page.getByRole("region", { name: "Top pages" });
    await pages.getByRole("button", { name: "/pricing", exact: true }).click();
    await page.waitForURL(/filter=/);
    expect(JSON.parse(new URL(page.url()).searchParams.get("filter")!)).toEqual([
      { key: "page_no_query", op: "is", value: pricing },
    ]);
    await settled(page);
    await tile(page, "Pageviews")
      .locator(".tile-value", { hasText: sawPricing.pageviews.toLocaleString("en-US") })
      .waitFor();

    // A UTM row filters by the landing URL's tag (a session key), not by any page holding its text.
    await page.goto(`${d.base}/web?period=30d&sources=utm_medium`);
    await page
      .getByRole("region", { name: "Top sources" })
      .getByRole("button", { name: "cpc", exact: true })
      .click();
    await page.waitForURL(/filter=/);
    expect(JSON.parse(new URL(page.url()).searchParams.get("filter")!)).toEqual([
      { key: "utm_medium", op: "is", value: "cpc" },
    ]);
    await settled(page);
    await tile(page, "Visits")
      .locator(".tile-value", { hasText: new RegExp(`^${cpc.visits.toLocaleString("en-US")}$`) })
      .waitFor();
    await page.goto(`${d.base}/web?period=30d`);
    await settled(page);

    // The tabs and the breakdown keep their state in the URL.
    await page.getByRole("radio", { name: "Exit page" }).click();
    await page.waitForURL(/pages=exit_pages/);
    await page.getByLabel("Then by").selectOption("country");
    await page.waitForURL(/by2=country/);
    await page
      .getByRole("region", { name: "Breakdown" })
      .getByRole("columnheader", { name: "Country" })
      .waitFor();
    expect(problems).toEqual([]);
  });
});
