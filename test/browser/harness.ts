/**
 * Shared setup of the real-browser snippet tests: the Lift app on 127.0.0.1, a customer site on
 * another origin (localhost), Chromium driven by playwright-core, and a recorder that notes what
 * the visitor could see.
 */
import { existsSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { startTestApp, type Tenant, type TestApp } from "../helpers/app.js";

const CHROMIUM = "/usr/bin/chromium";
// Headless Chrome announces itself as "HeadlessChrome", which the events module rightly flags as
// a bot (and experiments ignore bots); pages are driven with an ordinary desktop user agent.
export const USER_AGENT =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
export const RED = "rgb(255, 0, 0)";
export const BLUE = "rgb(0, 0, 255)";
export const BLACK = "rgb(0, 0, 0)";

/** Polls `fn` until it returns a truthy value or the deadline passes (events land asynchronously). */
export async function until<T>(
  fn: () => Promise<T | undefined | null | false>,
  what: string,
  ms = 10_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface Harness {
  t: TestApp;
  tenant: Tenant;
  api: string;
  siteUrl: string;
  browser: Browser;
  /** The snippet tag the customer puts in <head>. */
  scriptTag: string;
  close(): Promise<void>;
}

/** Starts the app, a tenant, the customer site (`page` answers its requests) and Chromium. */
export async function startHarness(
  page: (req: IncomingMessage, res: ServerResponse, h: Harness) => void,
): Promise<Harness> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  const t = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  const api = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  const tenant = await t.tenant();
  const h = {
    t,
    tenant,
    api,
    scriptTag: `<script src="${api}/api/svc-js?key=${tenant.publicKey}"></script>`,
  };
  // The customer's site: another origin (localhost vs 127.0.0.1), as in production.
  const site: Server = createServer((req, res) => page(req, res, harness));
  await new Promise<void>((r) => site.listen(0, "localhost", r));
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
  const harness: Harness = {
    ...h,
    siteUrl: `http://localhost:${(site.address() as AddressInfo).port}`,
    browser,
    async close() {
      await browser.close();
      await new Promise((r) => site.close(r));
      await t.close();
    },
  };
  return harness;
}

/** A browser context of its own (a new visitor) with the visible-colour recorder installed. */
export async function newVisitor(h: Harness): Promise<BrowserContext> {
  const context = await h.browser.newContext({ userAgent: USER_AGENT });
  await context.addInitScript(recordVisibleColour);
  return context;
}

/**
 * Runs in every page before any of its scripts: records each distinct colour of the first <h1>
 * while the body is visible (opacity not 0), sampled at every DOM mutation and every animation
 * frame, into `window.__seen`. A page that switched in front of the visitor has two entries.
 */
function recordVisibleColour(): void {
  const seen: string[] = [];
  (window as unknown as { __seen: string[] }).__seen = seen;
  const sample = () => {
    const h1 = document.querySelector("h1");
    if (!h1 || !document.body || getComputedStyle(document.body).opacity === "0") return;
    const colour = getComputedStyle(h1).color;
    if (seen[seen.length - 1] !== colour) seen.push(colour);
  };
  new MutationObserver(sample).observe(document, {
    subtree: true,
    childList: true,
    attributes: true,
    characterData: true,
  });
  const frame = () => {
    sample();
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
}

/** The colours the visitor has seen so far on this page (see recordVisibleColour). */
export function seenColours(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __seen: string[] }).__seen.slice());
}

/** Event types stored for a visitor, in the journey's order. */
export async function storedTypes(h: Harness, visitorId: string): Promise<string[]> {
  const j = (await h.tenant.get(`/api/identity?visitorId=${encodeURIComponent(visitorId)}`)).body;
  return (j?.events ?? []).map((e: { type: string }) => e.type);
}
