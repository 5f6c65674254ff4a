import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedFilterProject } from "../../src/modules/analytics/filters/filter-fixture.testing.js";
import type { Tenant } from "../helpers/app.js";
import { checkPage, type Dashboard, settled, signIn, startDashboard } from "./dashboard-harness.js";

/**
 * Dashboards that look and travel, in Chromium: a chart tile with its table a click away, the
 * dashboard-wide period (URL state) changing what every tile shows, and "Email this dashboard".
 * Figures of filter-fixture.testing.ts: three visitors in the last 7 days, none in January 2020.
 */
let d: Dashboard;
let a: Tenant;
let dashboardId: string;
beforeAll(async () => {
  d = await startDashboard();
  a = await d.t.tenant();
  await seedFilterProject(a);
  const insight = async (kind: string, name: string, settings: unknown) => {
    const res = await a.post("/api/insights", { kind, name, settings });
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  };
  const summary = await insight("summary", "This week", { period: "7d" });
  const trend = await insight("trends", "Pageviews", { series: [{ event: "pageview" }], period: "7d" });
  const dash = await a.post("/api/dashboards", {
    name: "Growth",
    items: [
      { insightId: summary, x: 0, y: 0, w: 6, h: 1 },
      { insightId: trend, x: 6, y: 0, w: 6, h: 2 },
    ],
  });
  dashboardId = dash.body.id;
}, 60_000);
afterAll(async () => d?.close());

const visitorsOf = (page: Page) =>
  page
    .getByRole("region", { name: "This week", exact: true })
    .locator("dt", { hasText: /^Visitors$/ })
    .locator("xpath=following-sibling::dd")
    .textContent()
    .then((t) => t?.trim());

describe("a dashboard's charts, period and subscriptions in Chromium", () => {
  it("draws the chart tile with its table a click away; the dashboard's period changes every tile", async () => {
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/dashboards/${dashboardId}`);
    await signIn(page, a.admin.email);
    // The first view starts the reader threads: a loaded machine may take a while.
    await page.getByRole("region", { name: "This week", exact: true }).waitFor({ timeout: 60_000 });
    await settled(page);
    const trend = page.getByRole("region", { name: "Pageviews", exact: true });
    // uPlot draws on a canvas inside the tile's figure
    await trend.locator("figure canvas").first().waitFor();
    expect(await visitorsOf(page)).toBe("3");
    await trend.getByRole("button", { name: "Show table of Pageviews" }).click();
    const rows = trend.getByRole("row");
    await rows.nth(1).waitFor();
    expect(await rows.count()).toBeGreaterThan(1);
    await trend.getByRole("button", { name: "Show chart of Pageviews" }).click();
    await trend.locator("figure canvas").first().waitFor();

    // The dashboard's own period: a range with no data empties every tile, and the link keeps it.
    await page.getByLabel("Dashboard period", { exact: true }).selectOption("custom");
    const range = page.getByRole("form", { name: "Custom dashboard period" });
    await range.getByLabel("From", { exact: true }).fill("2020-01-01");
    await range.getByLabel("To", { exact: true }).fill("2020-01-31");
    await range.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL(/period=custom&from=2020-01-01&to=2020-01-31/);
    await settled(page);
    await expect.poll(() => visitorsOf(page)).toBe("0");
    await page.getByText("Every tile shows 2020-01-01 to 2020-01-31").waitFor();
    await page.reload();
    await settled(page);
    await expect.poll(() => visitorsOf(page)).toBe("0");
    await checkPage(page, "dashboard-range");
    await page.getByLabel("Dashboard period", { exact: true }).selectOption("");
    await expect.poll(() => visitorsOf(page)).toBe("3");
    expect(page.url()).not.toContain("period=");
    expect(problems).toEqual([]);
  }, 120_000);

  it("emails the dashboard: a weekly subscription made, listed and paused from the dashboard", async () => {
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/dashboards/${dashboardId}`);
    await signIn(page, a.admin.email);
    await settled(page);
    await page.getByRole("button", { name: "Email this dashboard", expanded: false }).click();
    const form = page.getByRole("form", { name: "New subscription" });
    await form.getByLabel("How often").selectOption("weekly");
    await form.getByLabel("On").selectOption("monday");
    await form.getByLabel("At (UTC)").selectOption("9");
    expect(await form.getByLabel("Recipients").inputValue()).toBe(a.admin.email);
    await form.getByRole("button", { name: "Email this dashboard" }).click();
    const list = page.getByRole("list", { name: "Subscriptions of this dashboard" });
    await list.getByText("Every Monday at 09:00 UTC").waitFor();
    await checkPage(page, "dashboard-subscriptions");
    await list.getByRole("button", { name: "Pause" }).click();
    await list.getByText("(paused)").waitFor();

    const api = await a.get(`/api/subscriptions?dashboardId=${dashboardId}`);
    expect(api.body.items).toHaveLength(1);
    expect(api.body.items[0]).toMatchObject({
      frequency: "weekly",
      weekday: "monday",
      hour: 9,
      emails: [a.admin.email],
      enabled: false,
    });
    expect(problems).toEqual([]);
  }, 60_000);
});
