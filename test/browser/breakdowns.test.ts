import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkPage, type Dashboard, settled, signIn, startDashboard } from "./dashboard-harness.js";

let d: Dashboard;
beforeAll(async () => {
  d = await startDashboard();
}, 60_000);
afterAll(async () => d?.close());

const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const WINDOWS =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";

async function track(base: string, projectKey: string, userAgent: string, body: Record<string, unknown>) {
  const res = await fetch(`${base}/api/events`, {
    method: "POST",
    headers: { "content-type": "application/json", "user-agent": userAgent },
    body: JSON.stringify({ projectKey, type: "pageview", ...body }),
  });
  expect(res.status).toBe(200);
}

describe("breakdowns area in Chromium", () => {
  it("groups visitors and conversions by the chosen dimension, kept in the URL", async () => {
    const a = await d.t.tenant();
    await a.post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" });
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/breakdowns`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "Breakdowns", level: 1 }).waitFor();
    await settled(page);
    await page.getByText("No visits in this period yet").waitFor();
    await checkPage(page, "breakdowns-empty");

    // A phone buyer from the newsletter (30), two desktop visitors from Google.
    await track(d.base, a.publicKey, IPHONE, {
      visitorId: "p1",
      url: "https://shop.example.com/pricing?utm_source=newsletter&utm_medium=email&utm_campaign=spring",
    });
    await track(d.base, a.publicKey, IPHONE, {
      visitorId: "p1",
      type: "purchase",
      url: "https://shop.example.com/thanks",
      data: { revenue: 30 },
    });
    for (const visitorId of ["w1", "w2"])
      await track(d.base, a.publicKey, WINDOWS, {
        visitorId,
        url: "https://shop.example.com/",
        referrer: "https://www.google.com/",
      });

    await page.reload();
    await settled(page);
    const table = page.getByRole("region", { name: "Breakdown by channel", exact: true });
    const search = table.getByRole("row").filter({ hasText: "Organic search" });
    await search.waitFor();
    // visitors, conversions, who first came with it (and of them converted), the rate, revenue
    expect(await search.getByRole("cell").allTextContents()).toEqual([
      "Organic search",
      "2",
      "0",
      "2 (0 converted)",
      "0.0%",
      "0.00",
    ]);

    await page.getByLabel("Group by", { exact: true }).selectOption("device");
    await page.waitForURL(/by=device/);
    const devices = page.getByRole("region", { name: "Breakdown by device", exact: true });
    await devices.getByRole("row").filter({ hasText: "mobile" }).waitFor();
    const rows = await devices.getByRole("row").allTextContents();
    // header, then by visitors: desktop (2) before mobile (1)
    expect(rows.slice(1).map((r) => r.split(/\d/)[0])).toEqual(["desktop", "mobile"]);
    expect(
      await devices.getByRole("row").filter({ hasText: "mobile" }).getByRole("cell").allTextContents(),
    ).toEqual(["mobile", "1", "1", "1 (1 converted)", "100.0%", "30.00"]);

    // The dimension survives a reload (a link to it works).
    await page.reload();
    await settled(page);
    await page.getByRole("region", { name: "Breakdown by device", exact: true }).waitFor();
    await checkPage(page, "breakdowns");
    expect(problems).toEqual([]);
  }, 90_000);
});
