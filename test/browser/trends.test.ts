import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  checkPage,
  type Dashboard,
  sendEvent,
  settled,
  signIn,
  startDashboard,
} from "./dashboard-harness.js";

let d: Dashboard;
beforeAll(async () => {
  d = await startDashboard();
}, 60_000);
afterAll(async () => d?.close());

const DAY = 86_400_000;

/** The table's body rows as text, the bucket first (evaluateAll does not wait: the table is awaited first). */
async function tableRows(page: Page) {
  const table = page.getByRole("region", { name: "Trends table", exact: true });
  await table.getByRole("row").nth(1).waitFor();
  return table
    .getByRole("row")
    .evaluateAll((rows) =>
      rows.slice(1).map((r) => [...r.querySelectorAll("th, td")].map((c) => c.textContent ?? "")),
    );
}

describe("trends area in Chromium", () => {
  it("charts pageviews per day and purchases per 100 pageviews; table, number, a bad formula, saved and reopened", async () => {
    const a = await d.t.tenant();
    const today = Math.floor(Date.now() / DAY);
    // [days ago, visitor, type]: the truth below is counted from this list, not from the API.
    const seed: [number, string, string][] = [
      [3, "v1", "pageview"],
      [3, "v2", "pageview"],
      [3, "v3", "pageview"],
      [3, "v1", "purchase"],
      [2, "v1", "pageview"],
      [2, "v2", "pageview"],
      [1, "v3", "pageview"],
      [1, "v3", "purchase"],
    ];
    for (const [ago, visitorId, type] of seed)
      await sendEvent(d.base, a, {
        visitorId,
        type,
        timestamp: new Date((today - ago) * DAY + 10 * 3_600_000).toISOString(),
      });
    const dayOf = (ago: number) => new Date((today - ago) * DAY).toISOString().slice(0, 10);
    const count = (ago: number, type: string) => seed.filter((e) => e[0] === ago && e[2] === type).length;
    const truth = [3, 2, 1].map((ago) => {
      const pv = count(ago, "pageview");
      const buy = count(ago, "purchase");
      return [dayOf(ago), String(pv), String(buy), `${((buy / pv) * 100).toFixed(1)}%`];
    });
    const body = {
      series: [{ event: "pageview" }, { event: "purchase" }],
      formulas: [{ expression: "B / A * 100" }],
      interval: "day",
      period: "7d",
    };
    const api = await a.post("/api/analytics/trends", body);
    expect(api.status).toBe(200);
    const apiTotals = [...api.body.series, ...api.body.formulas].map((l: { total: number }) => l.total);
    expect(apiTotals.slice(0, 2)).toEqual([6, 2]);

    const { page, problems } = await d.open();
    await page.goto(`${d.base}/trends?period=7d`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "Trends", level: 1 }).waitFor();
    await settled(page);
    expect(await page.getByLabel("Series A event").inputValue()).toBe("pageview");
    await page.getByRole("button", { name: "Add a series" }).click();
    await page.getByLabel("Series B event").fill("purchase");
    await page.getByLabel("Formula").fill("B / A * 100");
    await page.getByRole("button", { name: "Show trends" }).click();
    await page.waitForURL(/series=/);

    // line (default): the legend's totals are the API's
    const legend = page.getByRole("figure", { name: /Trends per day/ });
    await legend.getByText("A. pageview: 6 in the period").waitFor();
    await legend.getByText("B. purchase: 2 in the period").waitFor();
    await legend.getByText(`F1. B / A * 100: ${apiTotals[2].toFixed(1)}% in the period`).waitFor();
    await checkPage(page, "trends-line");

    // bar: the same chart and legend, drawn as bars side by side
    await page.getByRole("radio", { name: "Bar" }).click();
    await page.waitForURL(/view=bar/);
    await legend.getByText("A. pageview: 6 in the period").waitFor();
    await legend.locator("canvas").waitFor();

    // table: a row per day, a column per series and formula; the seeded days as counted
    await page.getByRole("radio", { name: "Table" }).click();
    await page.waitForURL(/view=table/);
    const rows = await tableRows(page);
    expect(rows).toHaveLength(api.body.series[0].data.length);
    for (const want of truth) expect(rows.find((r) => r[0] === want[0])).toEqual(want);
    const fromApi = api.body.series[0].data.map((p: { bucket: string; value: number }, i: number) => [
      p.bucket.slice(0, 10),
      String(p.value),
      String(api.body.series[1].data[i].value),
    ]);
    expect(rows.map((r) => r.slice(0, 3))).toEqual(fromApi);

    // number, compared: the totals and their change from an empty previous week
    await page.getByRole("checkbox", { name: "Compare to the previous period" }).check();
    await page.getByRole("button", { name: "Show trends" }).click();
    await page.getByRole("radio", { name: "Number" }).click();
    await page.waitForURL(/view=number/);
    const tiles = page.getByRole("region", { name: "Trends totals", exact: true });
    await tiles.getByText("new").first().waitFor();
    expect(await tiles.locator(".tile-value").allTextContents()).toEqual([
      "6",
      "2",
      `${apiTotals[2].toFixed(1)}%`,
    ]);
    await checkPage(page, "trends-number");

    // a bad formula: the server's 400 message beside the field
    await page.getByLabel("Formula").fill("A / Q");
    await page.getByRole("button", { name: "Show trends" }).click();
    const err = page.locator("#trends-formula-error");
    await err.waitFor();
    const bad = await a.post("/api/analytics/trends", { ...body, formulas: [{ expression: "A / Q" }] });
    expect(bad.status).toBe(400);
    expect(await err.textContent()).toBe(bad.body.error);
    expect(await page.getByLabel("Formula").getAttribute("aria-invalid")).toBe("true");

    // saved as an insight, then opened again from the dashboards' list
    await page.getByLabel("Formula").fill("B / A * 100");
    await page.getByRole("checkbox", { name: "Compare to the previous period" }).uncheck();
    await page.getByRole("button", { name: "Show trends" }).click();
    await page.getByRole("radio", { name: "Table" }).click();
    await page.waitForURL(/view=table/);
    await settled(page);
    await page.getByRole("button", { name: "Save as insight" }).click();
    await page.getByLabel("Insight name").fill("Pageviews and purchases");
    await page.getByRole("form", { name: "Save as insight" }).getByRole("button", { name: "Save" }).click();
    await page.getByRole("status").filter({ hasText: "Saved “Pageviews and purchases”" }).waitFor();
    await page.goto(`${d.base}/dashboards`);
    await page.getByRole("link", { name: "Pageviews and purchases" }).click();
    await page.waitForURL(/\/trends\?/);
    await page.getByRole("radio", { name: "Table" }).click();
    await page.waitForURL(/view=table/);
    const reopened = await tableRows(page);
    for (const want of truth) expect(reopened.find((r) => r[0] === want[0])).toEqual(want);
    expect(await page.getByLabel("Series B event").inputValue()).toBe("purchase");

    // and as a dashboard tile: its chart with the same totals
    const saved = await a.get("/api/insights?kind=trends");
    expect(saved.body.items).toHaveLength(1);
    // by its id (a subscription mail's link): its own report page, with its series
    await page.goto(`${d.base}/dashboards/insights/${saved.body.items[0].id}`);
    await page.waitForURL(/\/trends\?/);
    expect(await page.getByLabel("Series B event").inputValue()).toBe("purchase");
    const board = await a.post("/api/dashboards", {
      name: "Shop",
      items: [{ insightId: saved.body.items[0].id, x: 0, y: 0, w: 6, h: 3 }],
    });
    expect(board.status).toBe(201);
    await page.goto(`${d.base}/dashboards/${board.body.id}`);
    const tile = page.getByRole("figure", { name: "Pageviews and purchases: trends per day" });
    await tile.getByText("A. pageview: 6 in the period").waitFor();
    await tile.getByText(`F1. B / A * 100: ${apiTotals[2].toFixed(1)}% in the period`).waitFor();
    expect(problems).toEqual([]);
  }, 90_000);
});
