import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Dashboard, sendEvent, settled, signIn, startDashboard } from "./dashboard-harness.js";
import { formatConfidence } from "../../src/platform/stats/confidence-format.js";
import { until } from "./harness.js";
import { checkThemes } from "./theme-check.js";

/**
 * Issue 34 items 1 and 6 in Chromium: the overview's numbers (conversion rate per person, revenue
 * with its currency, honest changes, one visitor total), the previous-period line, annotations
 * made by a click on the chart, an experiment's verdict from its first moment and its SRM warning,
 * and a goal's start. Every page is checked at 1280 and 390 px in the light and the dark scheme.
 */
let d: Dashboard;
beforeAll(async () => {
  d = await startDashboard();
}, 60_000);
afterAll(async () => d?.close());

const DAY = 86_400_000;
const dayStart = Math.floor(Date.now() / DAY) * DAY;
/** 09:00 UTC, `k` days ago */
const daysAgo = (k: number) => new Date(dayStart - k * DAY + 9 * 3_600_000).toISOString();
const isoDay = (k: number) => daysAgo(k).slice(0, 10);

const tile = (page: Page, label: RegExp) =>
  page.locator(".tile", { has: page.locator(".tile-label", { hasText: label }) });

describe("the overview's numbers", () => {
  it("per-person conversion rate, revenue in euros, changes from a small base, the period's visitors", async () => {
    const a = await d.t.tenant();
    await a.post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" });
    await a.post("/api/conversion-goals", { name: "Lead form", eventType: "form_submit" });
    // This week: v1 on two days with a form and a purchase of €100; v2 buys for €50; v3, v4 look.
    // The week before: v0 buys for €10.
    const ev = (visitorId: string, k: number, extra: Record<string, unknown> = {}) =>
      sendEvent(d.base, a, { visitorId, timestamp: daysAgo(k), ...extra });
    await ev("v1", 3);
    await ev("v1", 3, { type: "form_submit" });
    await ev("v1", 2);
    await ev("v1", 2, { type: "purchase", data: { revenue: 100, currency: "EUR" } });
    await ev("v2", 1);
    await ev("v2", 1, { type: "purchase", data: { revenue: 50, currency: "EUR" } });
    await ev("v3", 1);
    await ev("v4", 2);
    await ev("v0", 9);
    await ev("v0", 9, { type: "purchase", data: { revenue: 10, currency: "EUR" } });
    await a.post("/api/annotations", { date: isoDay(2), text: "Spring sale starts" });

    const { page, problems } = await d.open();
    await page.goto(`${d.base}/?period=7d`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    await settled(page);
    // 4 visitors; 3 conversions by 2 of them: 50%, not 75%
    expect(
      await tile(page, /^Visitors$/)
        .locator(".tile-value")
        .textContent(),
    ).toBe("4");
    expect(
      await tile(page, /^Conversions$/)
        .locator(".tile-value")
        .textContent(),
    ).toBe("3");
    const rate = tile(page, /^Conversion rate$/);
    expect(await rate.locator(".tile-value").textContent()).toBe("50.0%");
    expect(await rate.locator(".tile-detail").textContent()).toBe("2 of 4 visitors converted");
    // from 100% (v0 alone) the week before: points, not a percentage of a percentage
    expect(await rate.locator(".tile-change [aria-hidden]").first().textContent()).toBe("−50.0 pts");
    // 1 visitor the week before: the absolute change, not "+300%"
    expect(
      await tile(page, /^Visitors$/)
        .locator(".tile-change [aria-hidden]")
        .first()
        .textContent(),
    ).toBe("+3 from 1");
    const revenue = tile(page, /^Revenue \(EUR\)$/);
    const euros = (n: number) =>
      new Intl.NumberFormat("en-US", { style: "currency", currency: "EUR", maximumFractionDigits: 0 }).format(
        n,
      );
    expect(await revenue.locator(".tile-value").textContent()).toBe(euros(150));
    expect(await revenue.locator(".tile-change [aria-hidden]").first().textContent()).toBe(
      `+${euros(140)} from ${euros(10)}`,
    );

    // The legend: the period's 4 visitors (the days add up to 5), and the previous period's line.
    const legend = page.getByRole("figure", { name: /Visitors and conversions per day/ }).locator(".legend");
    await legend.getByText("Visitors: 4 in the period").waitFor();
    await legend.getByText(/^Visitors, previous period: 1 \(/).waitFor();
    // The annotation made through the API is listed under the chart.
    const notes = page.getByRole("list", { name: "Annotations" });
    await notes.getByText(/Spring sale starts/).waitFor();
    await checkThemes(page, "overview-numbers");

    // A click on the chart opens the form on that day; the new note is on the chart.
    const canvas = page.locator(".chart-canvas .u-over").first();
    const box = (await canvas.boundingBox())!;
    await canvas.click({ position: { x: box.width - 4, y: box.height / 2 } });
    const form = page.getByRole("form", { name: "Add an annotation" });
    expect(await form.getByLabel("Day").inputValue()).toBe(isoDay(0));
    await form.getByLabel("What happened").fill("Newsletter sent");
    await checkThemes(page, "overview-annotate");
    await form.getByRole("button", { name: "Save annotation" }).click();
    await notes.getByText(/Newsletter sent/).waitFor();
    expect(await notes.getByRole("listitem").count()).toBe(2);
    const saved = (await a.get("/api/annotations")).body as { date: string; text: string }[];
    expect(saved.map((n) => [n.date, n.text])).toEqual([
      [isoDay(0), "Newsletter sent"],
      [isoDay(2), "Spring sale starts"],
    ]);
    expect(problems).toEqual([]);
  }, 120_000);
});

describe("an experiment's verdict", () => {
  it("lists the variants from the start, then says who is ahead and how many visitors are left", async () => {
    const a = await d.t.tenant();
    await a.post("/api/conversion-goals", { name: "Signup", eventType: "signup" });
    const created = await a.post("/api/experiments", {
      name: "Headline",
      targetUrl: "https://shop.example.com/",
      variants: [{ name: "control" }, { name: "blue-headline" }],
    });
    const id = created.body.id as string;
    await a.patch("/api/experiments", { id, status: "running" });

    const { page, problems } = await d.open();
    await page.goto(`${d.base}/experiments/${id}`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "Headline", level: 1 }).waitFor();
    await settled(page);
    expect(await page.getByTestId("verdict").getAttribute("data-state")).toBe("no_data");
    expect(await page.getByTestId("srm-check").textContent()).toBe(
      "Traffic split check: waiting for exposures.",
    );
    const table = page.getByRole("region", { name: "Results per variant" });
    const row = (name: string) => table.getByRole("row").filter({ hasText: name });
    expect((await row("blue-headline").getByRole("cell").allTextContents()).slice(0, 4)).toEqual([
      "blue-headline",
      "0",
      "0",
      "0.00%",
    ]);
    await checkThemes(page, "experiment-no-data");

    // 40 visitors per arm: 4 sign up in control, 12 with the blue headline.
    for (let i = 0; i < 80; i++) {
      const variant = i < 40 ? "control" : "blue-headline";
      await sendEvent(d.base, a, {
        visitorId: `h${i}`,
        type: "$exposure",
        data: { experimentId: id, variant },
      });
      if (i % 10 < 1 || (i >= 40 && i % 10 < 3))
        await sendEvent(d.base, a, { visitorId: `h${i}`, type: "signup" });
    }
    const e = await until(async () => {
      const body = (await a.get(`/api/experiments/${id}`)).body;
      return body.results.totalConversions === 16 && body;
    }, "the exposures and conversions to be counted");
    expect(e.results.verdict.state).toBe("leading");
    await page.reload();
    await settled(page);
    const text = await page.getByTestId("verdict-text").textContent();
    expect(text).toBe(e.results.verdict.text);
    expect(text).toMatch(
      /^No winner yet — blue-headline is ahead, not yet significant; about [\d,]+ more visitors per variant if the rates hold\.$/,
    );
    // One confidence figure: the sequential test's, in the tile and the table.
    const confidence = formatConfidence(e.results.verdict.confidence);
    expect(
      await tile(page, /^Confidence/)
        .locator(".tile-value")
        .textContent(),
    ).toBe(confidence);
    expect(await page.getByRole("columnheader", { name: "Chance to beat control" }).count()).toBe(0);
    expect(await page.getByTestId("srm-check").textContent()).toMatch(/^Traffic split check: passed/);

    // The uplift chart's label axis is as wide as its longest label (it clipped "blue-headline").
    await page
      .getByRole("figure", { name: /Uplift of each variant/ })
      .locator("canvas")
      .waitFor();
    const fits = await page.evaluate(() => {
      const axes = document.querySelectorAll<HTMLElement>("figure[aria-label^='Uplift'] .u-axis");
      const ctx = document.createElement("canvas").getContext("2d")!;
      ctx.font = "12px system-ui, -apple-system, sans-serif";
      return [...axes].map((a) => a.getBoundingClientRect().width - ctx.measureText("blue-headline").width);
    });
    expect(Math.max(...fits)).toBeGreaterThan(10);
    await checkThemes(page, "experiment-verdict");

    // The list shows the same figure, not the single-look Bayesian one (about 99% here).
    expect(e.confidence).toBeGreaterThan(0.9);
    await page.goto(`${d.base}/experiments`);
    await settled(page);
    const listed = page.getByRole("row").filter({ hasText: "Headline" }).getByRole("cell");
    expect(await listed.last().textContent()).toBe(confidence);
    expect(problems).toEqual([]);
  }, 120_000);
});

describe("an experiment whose traffic is far from its split", () => {
  it("shows the sample ratio mismatch warning and no verdict", async () => {
    const a = await d.t.tenant();
    const created = await a.post("/api/experiments", {
      name: "Checkout",
      targetUrl: "https://shop.example.com/checkout",
      variants: [{ name: "control" }, { name: "one-page" }],
    });
    const id = created.body.id as string;
    await a.patch("/api/experiments", { id, status: "running" });
    // 90 against 30 on a 50/50 split: χ² = 2 × 30²/60 = 30 on 1 degree of freedom, p = erfc(√15) ≈ 4.3e-8.
    for (let i = 0; i < 120; i++)
      await sendEvent(d.base, a, {
        visitorId: `s${i}`,
        type: "$exposure",
        data: { experimentId: id, variant: i < 90 ? "control" : "one-page" },
      });
    const e = await until(async () => {
      const body = (await a.get(`/api/experiments/${id}`)).body;
      return body.results.totalExposures === 120 && body;
    }, "the exposures to be counted");
    expect(e.results.srm.mismatch).toBe(true);
    expect(e.results.srm.pValue).toBeCloseTo(4.32e-8, 9);

    const { page, problems } = await d.open();
    await page.goto(`${d.base}/experiments/${id}`);
    await signIn(page, a.admin.email);
    await page.getByRole("heading", { name: "Checkout", level: 1 }).waitFor();
    await settled(page);
    const warning = page.getByTestId("srm-warning");
    expect(await warning.getByRole("strong").textContent()).toBe("Sample ratio mismatch");
    expect(await warning.textContent()).toContain("(p = 4.3e-8)");
    expect(await page.getByTestId("verdict").getAttribute("data-state")).toBe("srm");
    expect(await page.getByTestId("verdict-text").textContent()).toMatch(
      /^No verdict: .*sample ratio mismatch/,
    );
    expect(await page.getByTestId("srm-check").textContent()).toBe(
      "Traffic split check: failed (p = 4.3e-8) — see the warning below.",
    );
    await checkThemes(page, "experiment-srm");
    expect(problems).toEqual([]);
  }, 120_000);
});

describe("a goal counted from a start date", () => {
  it("says since when it counts, and counts what happened since then", async () => {
    const a = await d.t.tenant();
    await sendEvent(d.base, a, {
      visitorId: "g1",
      type: "$revenue",
      timestamp: daysAgo(5),
      data: { revenue: 40 },
    });
    // Nothing counted ten days into forty: never "On track" (issue 34's "0 / 60,000 — On track").
    await a.post("/api/goals", {
      metric: "signups",
      target: 100,
      deadline: isoDay(-30),
      startDate: isoDay(10),
    });
    await d.t.app.worker.drain();
    const { page, problems } = await d.open();
    await page.goto(`${d.base}/goals`);
    await signIn(page, a.admin.email);
    await settled(page);
    await page.getByLabel("Metric", { exact: true }).selectOption("revenue");
    await page.getByLabel("Target").fill("1000");
    await page.getByLabel("Count from (optional)").fill(isoDay(10));
    await page.getByRole("button", { name: "Add goal" }).click();
    const row = (metric: string) => page.getByRole("row").filter({ hasText: metric });
    await row("revenue").getByTestId("goal-progress").getByText("40 / 1,000").waitFor();
    const since = new Date(`${isoDay(10)}T00:00:00Z`).toLocaleDateString("en-US", {
      day: "numeric",
      month: "short",
      year: "numeric",
      timeZone: "UTC",
    });
    expect(await row("revenue").getByTestId("goal-since").textContent()).toBe(`counted since ${since}`);
    // 40 of 1,000 a quarter of the way (10 of 40 days): 160 projected, behind.
    expect(await row("revenue").getByTestId("goal-status").textContent()).toBe("Behind");
    expect(await row("signups").getByTestId("goal-progress").textContent()).toBe("0 / 100");
    expect(await row("signups").getByTestId("goal-since").textContent()).toBe(`counted since ${since}`);
    expect(await row("signups").getByTestId("goal-status").textContent()).toBe("Behind");
    await checkThemes(page, "goals-since");
    expect(problems).toEqual([]);
  }, 90_000);
});
