import { readFileSync } from "node:fs";
import { parse } from "csv-parse/sync";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedFilterProject } from "../../src/modules/analytics/filters/filter-fixture.testing.js";
import type { Tenant } from "../helpers/app.js";
import {
  checkPage,
  type Dashboard,
  sendEvent,
  settled,
  signIn,
  startDashboard,
} from "./dashboard-harness.js";

/**
 * Issue 34, item 4 in Chromium: report settings in the URL, "Save as insight", a dashboard of
 * insights, its public link (opened without a session, then revoked) and CSV downloads. Figures of
 * filter-fixture.testing.ts plus one desktop visitor here: by device this week, desktop 3 visitors, mobile
 * 1 with the purchase (40), and L1's server revenue (25) under "(none)".
 */
let d: Dashboard;
let a: Tenant;
beforeAll(async () => {
  d = await startDashboard();
  a = await d.t.tenant();
  await seedFilterProject(a);
  // An event type a spreadsheet would run: the CSV download must neutralise it.
  await sendEvent(d.base, a, { visitorId: "hostile", type: '=HYPERLINK("https://evil.example","x")' });
}, 60_000);
afterAll(async () => d?.close());

async function saveInsight(page: Page, name: string) {
  await page.getByRole("button", { name: "Save as insight" }).click();
  await page.getByLabel("Insight name").fill(name);
  await page.getByRole("form", { name: "Save as insight" }).getByRole("button", { name: "Save" }).click();
  await page
    .getByRole("status")
    .filter({ hasText: `Saved “${name}”` })
    .waitFor();
}

const rowsOf = (page: Page, region: string) =>
  page
    .getByRole("region", { name: region, exact: true })
    .getByRole("row")
    .evaluateAll((rows) => rows.slice(1).map((r) => [...r.querySelectorAll("td")].map((c) => c.textContent)));

describe("save, share, export in Chromium", () => {
  it("keeps a funnel in the URL; saves reports as insights; builds a dashboard; shares it and revokes the link", async () => {
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/funnels?period=7d`);
    await signIn(page, a.admin.email);
    // the funnel's steps go into the URL when shown, so a reload (or the link) shows it again
    await page.getByLabel("Step 1 URL pattern").fill("*/pricing*");
    await page.getByLabel("Step 2 event type").fill("purchase");
    await page.getByLabel("Break down by").selectOption("channel");
    await page.getByRole("button", { name: "Show funnel" }).click();
    await page.waitForURL(/steps=/);
    const funnelUrl = page.url();
    await page.goto(funnelUrl);
    await settled(page);
    expect((await rowsOf(page, "Funnel steps")).map((r) => r[1])).toEqual(["3", "1"]);
    expect(await page.getByLabel("Step 2 event type").inputValue()).toBe("purchase");
    await saveInsight(page, "Pricing to purchase");

    await page.goto(`${d.base}/breakdowns?by=device&period=7d`);
    await settled(page);
    await saveInsight(page, "Visitors by device");
    await page.goto(`${d.base}/?period=7d`);
    await settled(page);
    await saveInsight(page, "This week");
    await checkPage(page, "overview-saved-insight");

    // the saved insights, each opening its report with its settings
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Dashboards" }).click();
    await page.getByRole("heading", { name: "Dashboards", level: 1 }).waitFor();
    const saved = page.getByRole("region", { name: "Saved insights", exact: true });
    await saved.getByRole("link", { name: "Visitors by device" }).click();
    await page.waitForURL(/\/breakdowns\?.*by=device/);
    await page.goBack();

    await page.getByLabel("Dashboard name").fill("Monday numbers");
    await page.getByRole("button", { name: "New dashboard" }).click();
    await page.getByRole("heading", { name: "Monday numbers", level: 1 }).waitFor();
    for (const name of ["This week", "Visitors by device", "Pricing to purchase"]) {
      await page.getByLabel("Add a saved insight").selectOption({ label: name });
      await page.getByRole("button", { name: "Add tile" }).click();
    }
    await page.getByLabel("Width of Pricing to purchase").selectOption("12");
    await checkPage(page, "dashboard-editor");
    await page.getByRole("button", { name: "Save tiles" }).click();
    await page.getByRole("region", { name: "Edit tiles" }).waitFor({ state: "detached" });
    await settled(page);
    const tile = (name: string) => page.getByRole("region", { name, exact: true });
    // the empty grid stays on screen until the results are fetched again after the save: wait
    // for a tile (one request brings them all) rather than count at one moment
    await tile("This week").getByText("Visitors").first().waitFor();
    expect(await rowsOf(page, "Visitors by device, table")).toEqual([
      ["desktop", "3", "0", "0.00"],
      ["mobile", "1", "1", "40.00"],
      ["(none)", "0", "1", "25.00"],
    ]);
    expect((await rowsOf(page, "Pricing to purchase, table")).map((r) => r[1])).toEqual(["3", "1"]);
    // Tiles keep their saved settings: the funnel's breakdown by channel, the overview's revenue
    // (mobile's purchase of 40 and L1's server revenue of 25), as the report pages show them.
    expect(await rowsOf(page, "Pricing to purchase, by channel")).toEqual([
      ["Email", "1", "1 (100.0%)"],
      ["Organic search", "1", "0 (0.0%)"],
      ["Organic social", "1", "0 (0.0%)"],
    ]);
    const facts = await tile("This week")
      .locator(".tile-facts > div")
      .evaluateAll((els) =>
        els.map((e) => [e.querySelector("dt")?.textContent, e.querySelector("dd")?.textContent]),
      );
    expect(facts).toContainEqual(["Revenue", "65"]);
    await checkPage(page, "dashboard");

    // the results are kept for a minute per dashboard version: a new visitor shows on Refresh
    await page.getByText("Computed just now.").waitFor();
    await sendEvent(d.base, a, { visitorId: "late-desktop", type: "video_play" });
    await page.getByRole("button", { name: "Refresh" }).click();
    await expect
      .poll(async () => (await rowsOf(page, "Visitors by device, table"))[0], { timeout: 15_000 })
      .toEqual(["desktop", "4", "0", "0.00"]);
    await page.getByRole("button", { name: "Refresh" }).and(page.locator(":enabled")).waitFor();

    // share: a link shown once; anyone opens it without signing in
    await page.getByRole("button", { name: "Share" }).click();
    await page.getByRole("button", { name: "Create public link" }).click();
    const url = (await page.getByTestId("share-url").textContent())!;
    expect(url).toMatch(new RegExp(`^${d.base}/share/svc_share_[A-Za-z0-9]{43}$`));
    await checkPage(page, "dashboard-share");
    for (const scheme of ["light", "dark"] as const) {
      const anonymous = await d.open({ colorScheme: scheme });
      await anonymous.page.goto(url);
      await anonymous.page.getByRole("heading", { name: "Monday numbers", level: 1 }).waitFor();
      await settled(anonymous.page);
      expect(await anonymous.page.getByRole("button", { name: "Sign out" }).count()).toBe(0);
      expect(await rowsOf(anonymous.page, "Visitors by device, table")).toHaveLength(3);
      await checkPage(anonymous.page, `shared-dashboard-${scheme}`);
      expect(anonymous.problems).toEqual([]);
    }
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Revoke link" }).click();
    await page.getByText("The public link was revoked.").waitFor();
    const after = await d.open();
    await after.page.goto(url);
    await after.page.getByText("This link does not show a dashboard").waitFor();
    expect(problems).toEqual([]);
  }, 180_000);

  it("downloads a table as CSV with the rows shown, formula cells neutralised; a wide table says it scrolls", async () => {
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/breakdowns?by=event_type&period=7d`);
    await signIn(page, a.admin.email);
    await settled(page);
    const [download] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download Breakdown by event type as CSV" }).click(),
    ]);
    expect(download.suggestedFilename()).toBe("breakdown-by-event-type.csv");
    const csv = readFileSync((await download.path())!, "utf8").replace(/^\uFEFF/, "");
    const lines = csv.trim().split("\r\n");
    expect(lines[0]).toMatch(/^Event type,Visitors,Conversions,/);
    expect(lines).toContainEqual(
      expect.stringMatching(/^"'=HYPERLINK\(""https:\/\/evil\.example"",""x""\)",1,0,/),
    );
    expect(lines.some((l) => l.startsWith("="))).toBe(false);

    // The API's values, not the page's text: numbers a spreadsheet reads as numbers (no "40.00"),
    // and an empty cell where the page shows "–" (nobody to divide by).
    await page.goto(`${d.base}/breakdowns?by=device&period=7d`);
    await settled(page);
    const [byDevice] = await Promise.all([
      page.waitForEvent("download"),
      page.getByRole("button", { name: "Download Breakdown by device as CSV" }).click(),
    ]);
    const records: Record<string, unknown>[] = parse(readFileSync((await byDevice.path())!, "utf8"), {
      bom: true,
      columns: true,
      cast: true,
    });
    const api = (await a.get("/api/analytics/breakdown?by=device&period=7d&limit=50")).body.rows as {
      key: string;
      visitors: number;
      conversions: number;
      revenue: number;
    }[];
    expect(
      records.map(({ Device, Visitors, Conversions, Revenue }) => ({
        Device,
        Visitors,
        Conversions,
        Revenue,
      })),
    ).toEqual(
      api.map((r) => ({
        Device: r.key,
        Visitors: r.visitors,
        Conversions: r.conversions,
        Revenue: r.revenue,
      })),
    );
    expect(records).toContainEqual(expect.objectContaining({ Device: "mobile", Revenue: 40 }));
    // every column but the device holds numbers, or nothing where there is none to show
    for (const { Device: _, ...figures } of records)
      for (const v of Object.values(figures)) expect(typeof v === "number" || v === "", `${v}`).toBe(true);
    const nobody = records.find((r) => r.Visitors === 0);
    expect(nobody, "a row without visitors (L1's server revenue)").toBeDefined();
    expect(Object.values(nobody!)).toContain("");

    await page.goto(`${d.base}/breakdowns?by=event_type&period=7d`);
    await settled(page);
    // a phone: the table scrolls inside its box, and says so until scrolled to its end
    await page.setViewportSize({ width: 390, height: 800 });
    const hint = page.getByText("Scroll sideways for more →");
    await hint.first().waitFor();
    await page
      .getByRole("region", { name: "Breakdown by event type", exact: true })
      .evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
    await hint.first().waitFor({ state: "detached" });
    await page.setViewportSize({ width: 1280, height: 900 });
    expect(await hint.count()).toBe(0);
    expect(problems).toEqual([]);
  }, 60_000);
});
