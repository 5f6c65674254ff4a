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

describe("retention area in Chromium", () => {
  it("shows daily cohorts and the share that came back, with the interval kept in the URL", async () => {
    const a = await d.t.tenant();
    // Two visitors first seen two days ago; one of them back yesterday.
    const day0 = (Math.floor(Date.now() / DAY) - 2) * DAY + 9 * 3_600_000;
    for (const v of ["r1", "r2"])
      await sendEvent(d.base, a, { visitorId: v, timestamp: new Date(day0).toISOString() });
    await sendEvent(d.base, a, { visitorId: "r1", timestamp: new Date(day0 + DAY).toISOString() });

    const { page, problems } = await d.open();
    await page.goto(`${d.base}/retention?period=7d`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "Retention", level: 1 }).waitFor();
    await settled(page);
    await page.getByLabel("Interval", { exact: true }).selectOption("day");
    await page.waitForURL(/interval=day/);
    const table = page.getByRole("region", { name: "Retention cohorts", exact: true });
    // The weekly table stays on screen until the daily one replaces it: wait for a daily column.
    await table.getByRole("columnheader", { name: "Day 1", exact: true }).waitFor();
    const start = new Date(day0).toISOString().slice(0, 10);
    const row = table.getByRole("row").filter({ hasText: start });
    await row.waitFor();
    const cells = await row.getByRole("cell").allTextContents();
    // 7d ends today: today's cells count people so far, marked and explained.
    // [people, day 0, day 1, day 2 (today), then the empty cells of days not reached]
    expect(cells.slice(0, 4)).toEqual(["2", "100%", "50%", "0%*"]);
    expect(cells.filter((c) => c.includes("*"))).toHaveLength(1);
    expect(await page.getByTestId("retention-partial").textContent()).toContain(
      "the last day is not over, so its cells count people so far",
    );
    await checkPage(page, "retention");
    expect(problems).toEqual([]);
  }, 90_000);
});
