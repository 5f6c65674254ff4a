import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedFilterProject } from "../../src/modules/analytics/filters/filter-fixture.testing.js";
import type { Tenant } from "../helpers/app.js";
import { checkPage, type Dashboard, settled, signIn, startDashboard } from "./dashboard-harness.js";

let d: Dashboard;
let a: Tenant;
beforeAll(async () => {
  d = await startDashboard();
  a = await d.t.tenant();
  await seedFilterProject(a);
}, 60_000);
afterAll(async () => d?.close());

const visitors = (page: Page) =>
  page
    .locator(".tile", { has: page.locator(".tile-label", { hasText: /^Visitors$/ }) })
    .locator(".tile-value");

describe("filters, cohorts and paths in Chromium (filter-fixture.testing.ts)", () => {
  it("filters the overview by a clicked row and by the condition builder, kept in the URL", async () => {
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/?period=7d`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    await settled(page);
    expect(await visitors(page).textContent()).toBe("3");

    // a row of the top channels: its value becomes the filter
    await page.getByRole("region", { name: "Top channels" }).getByRole("button", { name: "email" }).click();
    await page.waitForURL(/filter=/);
    await page.getByRole("list", { name: "Active filters" }).getByText("Channel is email").waitFor();
    await settled(page);
    expect(await visitors(page).textContent()).toBe("1");
    const shared = page.url();
    await checkPage(page, "overview-filtered");

    // the link alone gives the same view
    await page.goto(shared);
    await settled(page);
    expect(await visitors(page).textContent()).toBe("1");
    await page.getByRole("button", { name: "Remove filter: Channel is email" }).click();
    await settled(page);
    expect(await visitors(page).textContent()).toBe("3");

    // the condition builder: attribute, operator, value (offered from the data)
    await page.getByRole("button", { name: "Add a filter" }).click();
    await page.getByLabel("Condition 1: attribute").selectOption("device");
    await page.getByLabel("Condition 1: operator").selectOption("is");
    await page.getByLabel("Condition 1: value").fill("mob");
    // the value picker offers what the data holds for the attribute and prefix
    await page.locator('datalist option[value="mobile"]').waitFor({ state: "attached" });
    await page.getByLabel("Condition 1: value").fill("mobile");
    await checkPage(page, "filter-builder");
    await page.getByRole("button", { name: "Apply filter" }).click();
    await page.getByText("Device is mobile").waitFor();
    await settled(page);
    expect(await visitors(page).textContent()).toBe("1");
    expect(problems).toEqual([]);
  });

  it("shows the paths after a page as a flow chart and tables", async () => {
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/paths?period=7d&event=pageview&page=/pricing&steps=3`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "Paths", level: 1 }).waitFor();
    await settled(page);
    await page.getByRole("img", { name: /Flow of sessions after \/pricing/ }).waitFor();
    const table = page.getByRole("region", { name: "Most common paths" });
    expect(await table.getByRole("row").nth(1).getByRole("cell").allTextContents()).toEqual([
      "/checkout → purchase",
      "1",
    ]);
    await page.getByText("3 sessions reached /pricing").waitFor();
    await checkPage(page, "paths");
    expect(problems).toEqual([]);
  });

  it("creates a cohort with a live count, lists it, and filters the overview by it", async () => {
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/cohorts`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "Cohorts", level: 1 }).waitFor();
    await settled(page);
    await page.getByText("No cohorts yet").waitFor();
    await checkPage(page, "cohorts-empty");
    await page.getByRole("link", { name: "New cohort" }).click();
    await page.getByLabel("Cohort name").fill("Buyers");
    await page.getByLabel("Condition 1: event").fill("purchase");
    await page.getByLabel("Condition 1: in the last (days)").fill("7");
    await page.getByText("1 person now").waitFor();
    // flag targeting leaves browser-written properties out unless the cohort opts in
    expect(await page.getByLabel("Flags count lead properties written from the browser").isChecked()).toBe(
      false,
    );
    await checkPage(page, "cohort-editor");
    // An event condition's own conditions and a lead property condition beside it: each remove
    // button names its condition alone.
    await page.getByRole("button", { name: "Add a condition on condition 1's event" }).click();
    await page.getByRole("button", { name: "Add a lead property condition" }).click();
    const removes = await page.getByRole("button", { name: /^Remove condition/ }).allTextContents();
    expect(removes.map((r) => r.trim()).sort()).toEqual([
      "Remove condition 1",
      "Remove condition 1.1",
      "Remove condition 2",
    ]);
    await page.getByRole("button", { name: "Remove condition 2", exact: true }).click();
    await page.getByRole("button", { name: "Remove condition 1.1", exact: true }).click();
    await page.getByRole("button", { name: "Create cohort" }).click();
    await page.waitForURL(/\/cohorts$/);
    const row = page
      .getByRole("region", { name: "Saved cohorts" })
      .getByRole("row")
      .filter({ hasText: "Buyers" });
    await row.getByRole("cell", { name: "1", exact: true }).waitFor();
    await checkPage(page, "cohorts");
    await row.getByRole("link", { name: "Overview of Buyers" }).click();
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    await page.getByText("Cohort is Buyers").waitFor();
    await settled(page);
    expect(await visitors(page).textContent()).toBe("1");
    expect(problems).toEqual([]);
  });
});
