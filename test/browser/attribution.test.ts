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

describe("attribution area in Chromium", () => {
  it("credits channels under the chosen model and compares every model", async () => {
    const a = await d.t.tenant();
    expect((await a.post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" })).status).toBe(
      201,
    );
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/attribution`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "Attribution", level: 1 }).waitFor();
    await settled(page);
    await page.getByText("No conversions in this period").waitFor();
    await checkPage(page, "attribution-empty");

    // A paid-search buyer (100) and a newsletter buyer (50), one touch each, in US dollars: money
    // is shown with the currency the events name.
    await sendEvent(d.base, a, {
      visitorId: "b1",
      url: "https://shop.example.com/?utm_source=google&utm_medium=cpc",
    });
    await sendEvent(d.base, a, {
      visitorId: "b1",
      type: "purchase",
      url: "https://shop.example.com/thanks",
      data: { revenue: 100, currency: "USD" },
    });
    await sendEvent(d.base, a, {
      visitorId: "b2",
      url: "https://shop.example.com/?utm_source=newsletter&utm_medium=email",
    });
    await sendEvent(d.base, a, {
      visitorId: "b2",
      type: "purchase",
      url: "https://shop.example.com/thanks",
      data: { revenue: 50, currency: "USD" },
    });

    await page.reload();
    await settled(page);
    const detail = page.getByRole("region", {
      name: "Credited conversions and revenue per channel",
      exact: true,
    });
    const paid = detail.getByRole("row").filter({ hasText: "Paid search" });
    await paid.waitFor();
    expect(await paid.getByRole("cell").nth(1).textContent()).toBe("1");
    expect(await paid.getByRole("cell").nth(2).textContent()).toBe("$100.00");

    // Another model, kept in the URL.
    await page.getByLabel("Model", { exact: true }).selectOption("last_touch");
    await page.waitForURL(/model=last_touch/);
    await page.getByRole("heading", { name: "Credit by channel: Last touch" }).waitFor();
    expect(
      await detail.getByRole("row").filter({ hasText: "email" }).getByRole("cell").nth(2).textContent(),
    ).toBe("$50.00");

    // Every model side by side: with one touch each, all agree.
    const all = page.getByRole("region", {
      name: "Credited conversions and revenue per channel under every model",
    });
    const emailRow = all.getByRole("row").filter({ hasText: "email" });
    const cells = await emailRow.getByRole("cell").allTextContents();
    expect(cells).toEqual([
      "Email",
      "1",
      "$50.00",
      "1",
      "$50.00",
      "1",
      "$50.00",
      "1",
      "$50.00",
      "1",
      "$50.00",
    ]);
    // On a phone the wide table scrolls sideways, and its key column stays in view.
    await page.setViewportSize({ width: 390, height: 800 });
    await all.evaluate((el) => {
      el.scrollLeft = el.scrollWidth;
    });
    await expect.poll(() => all.evaluate((el) => el.scrollLeft)).toBeGreaterThan(200);
    const key = emailRow.getByRole("cell").first();
    const box = (await key.boundingBox())!;
    const region = (await all.boundingBox())!;
    expect(box.x).toBeLessThanOrEqual(region.x + 1);
    const onTop = await key.evaluate((cell) => {
      const r = cell.getBoundingClientRect();
      return cell.contains(document.elementFromPoint(r.left + 8, r.top + r.height / 2));
    });
    expect(onTop).toBe(true);
    await page.setViewportSize({ width: 1280, height: 900 });
    await checkPage(page, "attribution");

    // By source, kept in the URL: the paid-search buyer's visit came from google.
    await page.getByLabel("By", { exact: true }).selectOption("source");
    await page.waitForURL(/by=source/);
    await page.getByRole("heading", { name: "Credit by source: Last touch" }).waitFor();
    const bySource = page.getByRole("region", {
      name: "Credited conversions and revenue per source",
      exact: true,
    });
    const google = bySource.getByRole("row").filter({ hasText: "google" });
    await google.waitFor();
    expect(await google.getByRole("cell").allTextContents()).toEqual(["google", "1", "$100.00"]);
    await page.reload();
    await settled(page);
    expect(await page.getByLabel("By", { exact: true }).inputValue()).toBe("source");
    expect(problems).toEqual([]);
  }, 90_000);
});
