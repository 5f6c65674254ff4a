import { existsSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";

const CHROMIUM = "/usr/bin/chromium";
// The footer's "Powered by Scalar" credit: a plain link, nothing is fetched from it.
const ALLOWED_LINKS = ["https://www.scalar.com/"];

let t: TestApp;
let browser: Browser;
let origin = "";

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  t = await startTestApp();
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  browser = await chromium.launch({
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
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

describe("/docs (real Chromium)", () => {
  it("renders the API reference with nothing but this server: no outside requests, fonts, or service links", async () => {
    const context = await browser.newContext();
    const requested: string[] = [];
    const outside: string[] = [];
    // Offline: anything for another origin is recorded and refused.
    await context.route("**/*", (route) => {
      const url = route.request().url();
      requested.push(url);
      if (new URL(url).origin === origin) return route.continue();
      outside.push(url);
      return route.abort();
    });
    // A load the page's CSP blocks never reaches the router: record those too.
    await context.addInitScript(() => {
      const w = window as unknown as { blocked: string[] };
      w.blocked = [];
      document.addEventListener("securitypolicyviolation", (e) => w.blocked.push(e.blockedURI));
    });
    const page = await context.newPage();

    const res = await page.goto(`${origin}/docs`);
    expect(res?.status()).toBe(200);
    const csp = String(res?.headers()["content-security-policy"]);
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("font-src 'self' data:");

    // Operations render from /openapi.json with their summaries.
    await page.getByText("Sign in with email and password (sets the session cookie)").first().waitFor();
    await page.getByRole("button", { name: "Open Group - transactional" }).click();
    await page.getByText("Render and deliver one transactional email").first().waitFor();
    // The request panel works against this server too.
    await page
      .getByRole("button", { name: /Test Request/ })
      .first()
      .click();
    await page.getByText("Send Request").first().waitFor();
    await page.waitForLoadState("networkidle");

    expect(outside).toEqual([]);
    expect(requested).toContain(`${origin}/openapi.json`);
    // Zod probes `Function("")` (CSP: eval), which is no load; every other violation would be one.
    const blocked = await page.evaluate(() => (window as unknown as { blocked: string[] }).blocked);
    expect(blocked.filter((uri) => uri !== "eval")).toEqual([]);
    const links = await page.$$eval("a[href]", (as) => as.map((a) => (a as HTMLAnchorElement).href));
    const foreignLinks = links.filter((href) => /^https?:/.test(href) && new URL(href).origin !== origin);
    expect(foreignLinks.filter((href) => !ALLOWED_LINKS.includes(href))).toEqual([]);
    const text = await page.evaluate(() => document.body.textContent ?? "");
    for (const service of ["Ask AI", "Deploy", "Generate MCP", "Open API Client", "Developer Tools"])
      expect(text).not.toContain(service);
    const fonts = await page.evaluate(() =>
      [...document.fonts].map((f) => `${f.family} ${f.status}`).filter((f) => !f.endsWith("unloaded")),
    );
    expect(fonts).toEqual([]);
    await context.close();
  }, 60_000);
});
