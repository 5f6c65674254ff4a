import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Dashboard, sendEvent, settled, signIn, startDashboard } from "./dashboard-harness.js";
import { checkThemes } from "./theme-check.js";

/**
 * Issue 34 item 6 in Chromium: funnel bars with their drop-off, breakdown bars, the retention heat
 * map, and an annotation shown on every time chart — each against figures worked out by hand from
 * the events sent, at 1280 and 390 px in the light and the dark scheme.
 */
let d: Dashboard;
beforeAll(async () => {
  d = await startDashboard();
}, 60_000);
afterAll(async () => d?.close());

const DAY = 86_400_000;
const dayStart = Math.floor(Date.now() / DAY) * DAY;
/** `hour`:00 UTC, `k` days ago */
const at = (k: number, hour = 9) => new Date(dayStart - k * DAY + hour * 3_600_000).toISOString();
const isoDay = (k: number) => at(k).slice(0, 10);

/** A bar's width as its style gives it, in percent. */
const widthOf = (bar: Locator) => bar.evaluate((el) => Number.parseFloat((el as HTMLElement).style.width));

async function open(a: { admin: { email: string } }, path: string, heading: string) {
  const { page, problems } = await d.open();
  await page.goto(`${d.base}${path}`);
  await signIn(page, a.admin.email);
  await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
  await settled(page);
  return { page, problems };
}

describe("the report charts", () => {
  it("funnel bars, breakdown bars and the retention heat map match the events", async () => {
    const a = await d.t.tenant();
    await a.post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" });
    // Three days ago four people see pricing (p4 from Google), three sign up, one (p1) buys.
    // p1 and p2 come back two days ago, p1 again yesterday.
    for (const v of ["p1", "p2", "p3", "p4"])
      await sendEvent(d.base, a, {
        visitorId: v,
        timestamp: at(3),
        url: "https://shop.example.com/pricing",
        ...(v === "p4" ? { referrer: "https://www.google.com/" } : {}),
      });
    for (const v of ["p1", "p2", "p3"])
      await sendEvent(d.base, a, { visitorId: v, type: "signup", timestamp: at(3, 10) });
    await sendEvent(d.base, a, { visitorId: "p1", type: "purchase", timestamp: at(3, 11) });
    for (const [v, k] of [
      ["p1", 2],
      ["p2", 2],
      ["p1", 1],
    ] as const)
      await sendEvent(d.base, a, { visitorId: v, timestamp: at(k) });

    // Funnel: 4 → 3 → 1; 1 of 4 (25.0%) and 2 of 3 (66.7%) drop off; bars at 100, 75 and 25%.
    const { page, problems } = await open(a, "/funnels?period=7d", "Funnels");
    await page.getByLabel("Step 1 URL pattern").fill("*/pricing");
    await page.getByRole("button", { name: "Add a step" }).click();
    await page.getByLabel("Step 3 event type").fill("purchase");
    await page.getByRole("button", { name: "Show funnel" }).click();
    const bars = page.getByRole("list", { name: "Funnel steps as bars" });
    await bars.getByTestId("funnel-step").nth(2).waitFor();
    expect(await bars.getByTestId("funnel-drop").allTextContents()).toEqual([
      "↓ 1 dropped off (25.0%)",
      "↓ 2 dropped off (66.7%)",
    ]);
    expect(await bars.locator(".funnel-figure").allTextContents()).toEqual([
      "4 people",
      "3 people · 75.0% of entrants",
      "1 person · 25.0% of entrants",
    ]);
    const steps = bars.locator(".bar-fill");
    expect(await Promise.all([0, 1, 2].map((i) => widthOf(steps.nth(i))))).toEqual([100, 75, 25]);
    await checkThemes(page, "funnel-bars");

    // Breakdown by channel: direct 3 visitors and p1's purchase, organic search 1 visitor; the
    // longest bar (3) is the full width.
    await page.goto(`${d.base}/breakdowns?period=7d`);
    await settled(page);
    const chart = page.getByRole("figure", { name: "Visitors and conversions by channel" });
    const rows = chart.getByTestId("breakdown-bar");
    await rows.nth(1).waitFor();
    expect(await rows.allTextContents()).toEqual([
      "direct3 visitors · 1 conversion",
      "organic_search1 visitor · 0 conversions",
    ]);
    const fills = async (i: number) => {
      const [visitors, conversions] = [
        rows.nth(i).locator(".bar-fill").first(),
        rows.nth(i).locator(".conversions"),
      ];
      return [await widthOf(visitors), await widthOf(conversions)];
    };
    const [direct, search] = [await fills(0), await fills(1)];
    expect(direct[0]).toBe(100);
    expect(direct[1]).toBeCloseTo(100 / 3, 3);
    expect(search[0]).toBeCloseTo(100 / 3, 3);
    expect(search[1]).toBe(0);
    await checkThemes(page, "breakdown-bars");

    // Retention by day: the cohort of 4 three days ago; 100% on day 0, 2 of 4 (50%) on day 1,
    // 1 of 4 (25%) on day 2 — shades 6 (70%+), 5 (50%+) and 3 (20%+).
    await page.goto(`${d.base}/retention?period=7d&interval=day`);
    await settled(page);
    const table = page.getByRole("region", { name: "Retention cohorts", exact: true });
    const row = table.getByRole("row").filter({ hasText: isoDay(3) });
    await row.waitFor();
    const cells = row.getByRole("cell");
    expect((await cells.allTextContents()).slice(0, 4)).toEqual(["4", "100%", "50%", "25%"]);
    expect(await Promise.all([1, 2, 3].map((i) => cells.nth(i).getAttribute("class")))).toEqual([
      "num heat heat-6",
      "num heat heat-5",
      "num heat heat-3",
    ]);
    await checkThemes(page, "retention-heat");
    expect(problems).toEqual([]);
  }, 180_000);
});

describe("annotations", () => {
  const listed = (page: Page) => page.getByRole("list", { name: "Annotations" }).getByRole("listitem");

  it("one made through the API shows on every time chart whose days it covers", async () => {
    const a = await d.t.tenant();
    await sendEvent(d.base, a, { visitorId: "n1", timestamp: at(2) });
    // Three days ago until today: it overlaps the overview's 7 days and the belief's one day.
    const note = await a.post("/api/annotations", {
      date: isoDay(3),
      endDate: isoDay(0),
      text: "Pricing page redesign",
    });
    expect(note.status).toBe(201);
    const belief = await a.post("/api/beliefs", { statement: "Clear prices sell", confidence: 0.4 });
    await a.post(`/api/beliefs/${belief.body.id}/update-confidence`, { type: "observation", delta: 0.3 });

    const { page, problems } = await open(a, "/?period=7d", "Overview");
    await page.locator(".chart-canvas canvas").first().waitFor();
    const range = (k: number) =>
      new Date(`${isoDay(k)}T00:00:00Z`).toLocaleDateString("en-US", {
        day: "numeric",
        month: "short",
        timeZone: "UTC",
      });
    const text = `1${range(3)}–${range(0)}: Pricing page redesign`;
    await listed(page).first().waitFor();
    expect(await listed(page).allTextContents()).toEqual([text]);

    await page.goto(`${d.base}/goals/beliefs/${belief.body.id}`);
    await page.getByRole("heading", { name: "Clear prices sell", level: 1 }).waitFor();
    await settled(page);
    await listed(page).first().waitFor();
    expect(await listed(page).allTextContents()).toEqual([text]);
    await checkThemes(page, "belief-annotation");
    expect(problems).toEqual([]);
  }, 120_000);
});
