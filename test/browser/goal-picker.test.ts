import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
 * The overview counts one conversion goal or any, says which, and lists every goal side by side:
 * 10 web visitors, 5 of whom clicked "upgrade" (a web event) and 2 of whom bought (a server's
 * purchase), plus a buyer who never visited. Any goal: 6 of 10 visitors converted (a buyer clicked
 * too); purchases alone: 2 of 10, with the third purchase a conversion but no visitor.
 */
let d: Dashboard;
let a: Tenant;

beforeAll(async () => {
  d = await startDashboard();
  a = await d.t.tenant();
  for (const [name, eventType] of [
    ["Purchase", "purchase"],
    ["Upgrade clicked", "upgrade_click"],
  ])
    expect((await a.post("/api/conversion-goals", { name, eventType })).status).toBe(201);
  for (let i = 0; i < 10; i++) await sendEvent(d.base, a, { visitorId: `v${i}` });
  for (let i = 0; i < 5; i++) await sendEvent(d.base, a, { visitorId: `v${i}`, type: "upgrade_click" });
  const track = (who: Record<string, string>) => ({
    type: "track",
    event: "purchase",
    properties: { revenue: 30 },
    ...who,
  });
  const res = await fetch(`${d.base}/v1/batch`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Basic ${Buffer.from(`${a.apiKey}:`).toString("base64")}`,
    },
    body: JSON.stringify({
      batch: [track({ anonymousId: "v0" }), track({ anonymousId: "v9" }), track({ userId: "never-visited" })],
    }),
  });
  expect(res.status).toBe(200);
}, 120_000);
afterAll(async () => d?.close());

const tile = (page: Page, label: string) =>
  page.locator(".tile", { has: page.locator(".tile-label", { hasText: new RegExp(`^${label}`) }) });

describe("the goal picker", () => {
  it("shows any goal by default, one goal when picked (kept in the URL), and each goal's line", async () => {
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/?period=7d`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    await settled(page);
    expect(await page.locator(".period-note").textContent()).toMatch(/Conversions: any conversion goal\./);
    expect(await tile(page, "Conversions").locator(".tile-value").textContent()).toMatch(/^8\b/);
    expect(await tile(page, "Conversion rate").locator(".tile-detail").textContent()).toBe(
      "6 of 10 visitors converted",
    );

    await page.getByLabel("Conversion goal").selectOption({ label: "Purchase" });
    await page.waitForURL(/goal=cgoal_/);
    await settled(page);
    expect(await page.locator(".period-note strong").textContent()).toBe("Purchase");
    expect(await tile(page, "Conversions").locator(".tile-value").textContent()).toMatch(/^3\b/);
    expect(await tile(page, "Conversion rate").locator(".tile-detail").textContent()).toBe(
      "2 of 10 visitors converted",
    );
    // a reload keeps the goal
    await page.reload();
    await settled(page);
    expect(await page.getByLabel("Conversion goal").inputValue()).toMatch(/^cgoal_/);

    const goals = page.getByRole("region", { name: "Goals" });
    const row = (name: string) => goals.getByRole("row").filter({ hasText: name }).getByRole("cell");
    // Revenue as money (these events name no currency: the number, with cents, as every table shows it).
    expect(await row("Purchase").allTextContents()).toEqual(["Purchase", "2", "3", "20.0%", "90.00"]);
    expect(await row("Upgrade clicked").allTextContents()).toEqual([
      "Upgrade clicked",
      "5",
      "5",
      "50.0%",
      "0.00",
    ]);
    await checkPage(page, "overview-goal");
    expect(problems).toEqual([]);
  });
});
