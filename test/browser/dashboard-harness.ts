import { existsSync, mkdirSync, readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { type Browser, type BrowserContext, type Page, chromium } from "playwright-core";
import { expect } from "vitest";
import type { Config } from "../../src/config.js";
import { startTestApp, type Tenant, type TestApp } from "../helpers/app.js";

/**
 * Drives the built dashboard (web/dist, built by vitest's globalSetup) in Debian's Chromium against
 * the real app on a random port. Every page check runs axe-core in the page, looks for horizontal
 * overflow at 1280 and 390 px, and writes a screenshot per width under test-results/screenshots/.
 */
export const CHROMIUM = "/usr/bin/chromium";
export const PASSWORD = "correct horse battery";
// HeadlessChrome is (rightly) a bot to the events module; the dashboard is driven as a desktop browser.
export const USER_AGENT =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
export const WIDTHS = [1280, 390] as const;
const SCREENSHOTS = path.resolve("test-results", "screenshots");
const AXE_SOURCE = readFileSync(path.resolve("node_modules", "axe-core", "axe.min.js"), "utf8");

export interface Dashboard {
  t: TestApp;
  base: string;
  browser: Browser;
  /**
   * A fresh browser profile at 1280 px, in the system's light (default) or dark colour scheme; CSP
   * reports and page errors are collected per page.
   */
  open(opts?: {
    colorScheme?: "light" | "dark";
  }): Promise<{ context: BrowserContext; page: Page; problems: string[] }>;
  close(): Promise<void>;
}

export async function startDashboard(overrides: Partial<Config> = {}): Promise<Dashboard> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  const t = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 }, ...overrides });
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
    ],
  });
  const contexts: BrowserContext[] = [];
  return {
    t,
    base,
    browser,
    async open(opts = {}) {
      const context = await browser.newContext({
        userAgent: USER_AGENT,
        viewport: { width: 1280, height: 900 },
        colorScheme: opts.colorScheme ?? "light",
      });
      contexts.push(context);
      const page = await context.newPage();
      const problems: string[] = [];
      page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
      page.on("console", (msg) => {
        // A refused inline script or style would show here: the CSP allows neither.
        if (msg.type() === "error" && /Content Security Policy|Refused to/i.test(msg.text()))
          problems.push(`CSP: ${msg.text()}`);
      });
      return { context, page, problems };
    },
    async close() {
      for (const c of contexts) await c.close().catch(() => {});
      await browser.close();
      await t.close();
    },
  };
}

/** Signs in through the form (email, password, the button) and waits for the app behind it. */
export async function signIn(page: Page, email: string, password = PASSWORD): Promise<void> {
  await page.getByRole("heading", { name: "Sign in" }).waitFor();
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

/** Waits until no loading placeholder is left on the page. */
export async function settled(page: Page): Promise<void> {
  await page.waitForFunction(() => document.querySelector(".skeleton") === null, undefined, {
    timeout: 10_000,
  });
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core's serious and critical violations on the page as it is now. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern (a <script>
  // tag with axe inline would be refused, as it should be).
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as { axe: { run: (ctx: Document, o: object) => Promise<{ violations: unknown[] }> } }
    ).axe;
    return (await axe.run(document, { resultTypes: ["violations"] })).violations;
  });
  return (violations as AxeViolation[])
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}

/**
 * The checks every page gets, at 1280 and 390 px: no serious/critical axe violation, no
 * horizontal overflow of the document, and a full-page screenshot.
 */
export async function checkPage(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 900 });
    await settled(page);
    // layout after the resize (the chart follows its box through a ResizeObserver)
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const overflow = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
    }));
    expect(
      overflow.scrollWidth,
      `${name} at ${width}px is ${overflow.scrollWidth}px wide`,
    ).toBeLessThanOrEqual(overflow.clientWidth);
    expect(await seriousViolations(page), `${name} at ${width}px`).toEqual([]);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 1280, height: 900 });
}

/** POST /api/events over HTTP as a browser on the customer's site would send it. */
export async function sendEvent(base: string, a: Tenant, body: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${base}/api/events`, {
    method: "POST",
    headers: { "content-type": "application/json", "user-agent": USER_AGENT },
    body: JSON.stringify({
      projectKey: a.publicKey,
      url: "https://shop.example.com/",
      type: "pageview",
      ...body,
    }),
  });
  expect(res.status).toBe(200);
}
