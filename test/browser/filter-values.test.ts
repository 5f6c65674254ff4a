import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedFilterProject } from "../../src/modules/analytics/filters/filter-fixture.testing.js";
import type { Tenant } from "../helpers/app.js";
import { checkPage, type Dashboard, settled, signIn, startDashboard } from "./dashboard-harness.js";

/**
 * The filter editor takes several values for "is any of" / "is none of" as chips, and sends them
 * as the API's array value — "email, organic_search" typed in one box matched nothing before.
 * filter-fixture.testing.ts: one visitor each from email, organic_search and organic_social this week.
 */
let d: Dashboard;
let a: Tenant;
beforeAll(async () => {
  d = await startDashboard();
  a = await d.t.tenant();
  await seedFilterProject(a);
}, 60_000);
afterAll(async () => d?.close());

const filterOf = (url: string) => JSON.parse(new URL(url).searchParams.get("filter") ?? "[]");

describe("a multi-value filter in Chromium", () => {
  it("makes chips by Enter, comma and paste; removes one; the report answers rows for each value", async () => {
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/breakdowns?by=channel&period=7d`);
    await signIn(page, a.admin.email);
    await settled(page);
    const table = page.getByRole("region", { name: "Breakdown by channel", exact: true });
    const keys = () =>
      table
        .getByRole("row")
        .evaluateAll((rows) => rows.slice(1).map((r) => r.querySelector("td")?.textContent));
    expect(await keys()).toEqual(expect.arrayContaining(["Email", "Organic search", "Organic social"]));

    await page.getByRole("button", { name: "Add a filter" }).click();
    await page.getByLabel("Condition 1: attribute").selectOption("channel");
    await page.getByLabel("Condition 1: operator").selectOption({ label: "is any of" });
    const input = page.getByLabel("Condition 1: value");
    const chips = page.getByRole("list", { name: "Values of condition 1" });
    // Enter makes a chip (and does not apply the filter yet); a comma does too
    await input.fill("email");
    await input.press("Enter");
    await input.pressSequentially("organic_social,");
    expect(await chips.getByRole("listitem").allTextContents()).toEqual([
      expect.stringContaining("email"),
      expect.stringContaining("organic_social"),
    ]);
    expect(await input.inputValue()).toBe("");
    expect(page.url()).not.toContain("filter=");
    // a pasted list becomes one chip per value (a repeat is kept once)
    await input.evaluate((el) => {
      const data = new DataTransfer();
      data.setData("text/plain", "organic_search, email");
      el.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
    });
    expect(await chips.getByRole("listitem").count()).toBe(3);
    await page.getByRole("button", { name: "Remove value organic_social" }).click();
    expect(await chips.getByRole("listitem").count()).toBe(2);
    await checkPage(page, "filter-chips");

    const request = page.waitForRequest(
      (r) => r.url().includes("/api/analytics/breakdown?") && r.url().includes("filter="),
    );
    await page.getByRole("button", { name: "Apply filter" }).click();
    const sent = filterOf((await request).url());
    expect(sent).toEqual([{ key: "channel", op: "is", value: ["email", "organic_search"] }]);
    expect(filterOf(page.url())).toEqual(sent);
    await page
      .getByRole("list", { name: "Active filters" })
      .getByText("Channel is Email or Organic search")
      .waitFor();
    await settled(page);
    await expect.poll(keys).toEqual(["Email", "Organic search"]);

    // "is none of" the same two: the third channel only
    await page.getByRole("button", { name: "Edit filter" }).click();
    expect(await chips.getByRole("listitem").count()).toBe(2);
    await page.getByLabel("Condition 1: operator").selectOption({ label: "is none of" });
    await page.getByRole("button", { name: "Apply filter" }).click();
    await expect
      .poll(() => filterOf(page.url()))
      .toEqual([{ key: "channel", op: "is_not", value: ["email", "organic_search"] }]);
    await settled(page);
    await expect.poll(keys).toContain("Organic social");
    expect(await keys()).not.toContain("Email");
    expect(await keys()).not.toContain("Organic search");
    expect(problems).toEqual([]);
  }, 90_000);
});
