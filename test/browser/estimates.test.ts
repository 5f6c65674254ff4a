import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ESTIMATE_ERROR } from "../../src/modules/analytics/ingest/hll.js";
import type { Tenant } from "../helpers/app.js";
import {
  checkPage,
  type Dashboard,
  USER_AGENT,
  settled,
  signIn,
  startDashboard,
} from "./dashboard-harness.js";

/**
 * Estimated visitor counts in Chromium: 5,000 visitors from organic search in one day (more than a
 * day's exact sketch holds) and 20 from email, sent through Segment's batch API with the secret
 * key. The large counts show "≈" with their bound as a tooltip; the small channel's count is plain.
 */
let d: Dashboard;
let a: Tenant;
const BIG = 5000;
const SMALL = 20;
const NOTE = `Estimated: within ±${(ESTIMATE_ERROR * 100).toFixed(1)}% for 99% of counts`;

beforeAll(async () => {
  d = await startDashboard();
  a = await d.t.tenant();
  const yesterday = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000 - 12 * 3_600_000);
  const page = (anonymousId: string, i: number, context: Record<string, unknown>) => ({
    type: "page",
    anonymousId,
    messageId: `m-${anonymousId}`,
    timestamp: new Date(yesterday.getTime() + i).toISOString(),
    context: { userAgent: USER_AGENT, ...context },
  });
  const messages = [
    ...Array.from({ length: BIG }, (_, i) =>
      page(`big-${i}`, i, {
        page: { url: "https://shop.example.com/", referrer: "https://www.google.com/" },
      }),
    ),
    ...Array.from({ length: SMALL }, (_, i) =>
      page(`small-${i}`, i, {
        page: { url: "https://shop.example.com/pricing?utm_source=news&utm_medium=email" },
      }),
    ),
  ];
  for (let i = 0; i < messages.length; i += 1000) {
    const res = await fetch(`${d.base}/v1/batch`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Basic ${Buffer.from(`${a.apiKey}:`).toString("base64")}`,
      },
      body: JSON.stringify({ batch: messages.slice(i, i + 1000) }),
    });
    expect(res.status).toBe(200);
  }
}, 120_000);
afterAll(async () => d?.close());

const tileValue = (page: Page) =>
  page
    .locator(".tile", { has: page.locator(".tile-label", { hasText: /^Visitors$/ }) })
    .locator(".tile-value");

describe("estimated counts in the dashboard", () => {
  it("the overview marks the estimated tile, channel row and legend with ≈ and the bound; exact counts stay plain", async () => {
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/?period=7d`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    await settled(page);

    const tile = tileValue(page).locator(".estimate");
    expect(await tile.count()).toBe(1);
    expect(await tile.getAttribute("title")).toBe(NOTE);
    const shown = (await tile.locator("[aria-hidden]").textContent()) + (await tile.textContent())!;
    expect(shown.startsWith("≈≈")).toBe(true);
    const n = Number((await tile.textContent())!.replace(/^≈/, "").split(" (")[0]!.replaceAll(",", ""));
    expect(Math.abs(n - (BIG + SMALL)) / (BIG + SMALL)).toBeLessThanOrEqual(ESTIMATE_ERROR);
    // said to screen readers too
    expect(await tile.locator(".visually-hidden").textContent()).toBe(` (${NOTE.toLowerCase()})`);

    const channels = page.getByRole("region", { name: "Top channels" });
    const search = channels.getByRole("row").filter({ hasText: "organic" });
    expect(await search.locator(".estimate").count()).toBe(1);
    expect(await search.locator(".estimate").getAttribute("title")).toBe(NOTE);
    const email = channels.getByRole("row").filter({ hasText: /email/i });
    expect(await email.locator(".estimate").count()).toBe(0);
    expect(await email.getByRole("cell").nth(1).textContent()).toBe(String(SMALL));

    const legend = page.locator(".legend-item", { hasText: /^Visitors: ≈/ });
    expect(await legend.count()).toBe(1);
    expect(await legend.getAttribute("title")).toBe(NOTE);
    await checkPage(page, "overview-estimated");
    expect(problems).toEqual([]);
  });

  it("the breakdowns table marks the estimated landing page, not the small one", async () => {
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/breakdowns?by=landing_page&period=7d`);
    await signIn(page, a.admin.email);
    await settled(page);
    const table = page.getByRole("region", { name: "Breakdown by landing page" });
    // one estimated row, the home page's; the pricing page's 20 are exact
    const estimated = table.locator(".estimate");
    expect(await estimated.count()).toBe(1);
    expect(await estimated.getAttribute("title")).toBe(NOTE);
    const pricing = table.getByRole("row").filter({ hasText: "/pricing" });
    expect(await pricing.locator(".estimate").count()).toBe(0);
    expect(await pricing.getByRole("cell").nth(1).textContent()).toBe(String(SMALL));
    expect(problems).toEqual([]);
  });
});
