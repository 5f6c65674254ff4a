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

describe("funnels area in Chromium", () => {
  it("counts people through the steps the user names, with a third step added", async () => {
    const a = await d.t.tenant();
    // Three visitors see pricing; two sign up; one of those buys.
    for (const v of ["f1", "f2", "f3"])
      await sendEvent(d.base, a, {
        visitorId: v,
        url: "https://shop.example.com/pricing",
        ...(v === "f3" ? { referrer: "https://www.google.com/" } : {}),
      });
    for (const v of ["f1", "f2"]) await sendEvent(d.base, a, { visitorId: v, type: "signup" });
    await sendEvent(d.base, a, { visitorId: "f1", type: "purchase" });

    const { page, problems } = await d.open();
    await page.goto(`${d.base}/funnels`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "Funnels", level: 1 }).waitFor();
    await settled(page);
    await page.getByText("No funnel yet").waitFor();
    await checkPage(page, "funnels-empty");

    await page.getByLabel("Step 1 URL pattern").fill("*/pricing");
    await page.getByRole("button", { name: "Add a step" }).click();
    await page.getByLabel("Step 3 event type").fill("purchase");
    await page.getByRole("button", { name: "Show funnel" }).click();
    const rows = page.getByRole("region", { name: "Funnel steps", exact: true }).getByRole("row");
    await rows.nth(3).waitFor();
    const cells = async (i: number) => rows.nth(i).getByRole("cell").allTextContents();
    expect((await cells(1)).slice(0, 4)).toEqual(["1. pageview */pricing", "3", "100.0%", "100.0%"]);
    expect((await cells(2)).slice(0, 4)).toEqual(["2. signup", "2", "66.7%", "66.7%"]);
    expect((await cells(3)).slice(0, 4)).toEqual(["3. purchase", "1", "50.0%", "33.3%"]);
    await checkPage(page, "funnels");

    // Broken down by channel: f3 came from Google, the others directly.
    await page.getByLabel("Break down by").selectOption("channel");
    await page.getByRole("button", { name: "Show funnel" }).click();
    const groups = page.getByRole("region", { name: "Funnel by channel", exact: true }).getByRole("row");
    await groups.nth(2).waitFor();
    const group = async (i: number) => groups.nth(i).getByRole("cell").allTextContents();
    expect(await group(1)).toEqual(["Direct", "2", "2 (100.0%)", "1 (50.0%)"]);
    expect(await group(2)).toEqual(["Organic search", "1", "0 (0.0%)", "0 (0.0%)"]);
    await checkPage(page, "funnels-breakdown");
    expect(problems).toEqual([]);
  }, 90_000);
});
