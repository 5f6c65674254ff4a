import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, newVisitor, startHarness } from "./harness.js";

/**
 * OpenFeature's web SDK with its OFREP provider (@openfeature/ofrep-web-provider), bundled as a
 * site would bundle it, in Chromium on a page of another origin, against Lift's /ofrep/v1 with the
 * project's public key: the values are Lift's remote evaluation's, the bulk answer's ETag is read
 * cross-origin, and polling gets 304 until a flag changes.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

let h: Harness;
beforeAll(async () => {
  const bundled = await build({
    stdin: {
      contents: `import { OpenFeature } from "@openfeature/web-sdk";
import { OFREPWebProvider } from "@openfeature/ofrep-web-provider";
window.OpenFeature = OpenFeature;
window.OFREPWebProvider = OFREPWebProvider;`,
      resolveDir: ROOT,
      loader: "js",
    },
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2020",
    write: false,
    logLevel: "silent",
  });
  const bundle = bundled.outputFiles[0]!.text;
  h = await startHarness((req, res, harness) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname === "/openfeature.js") {
      res.writeHead(200, { "content-type": "application/javascript" }).end(bundle);
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(`<!doctype html><html><head>
<title>Shop</title><script src="/openfeature.js"></script></head><body><h1>Shop</h1><script>
OpenFeature.setContext({ targetingKey: ${JSON.stringify(url.searchParams.get("v") ?? "anonymous")}, country: "FR" });
window.ready = OpenFeature.setProviderAndWait(new OFREPWebProvider({
  baseUrl: ${JSON.stringify(harness.api)},
  headers: [["Authorization", "Bearer ${harness.tenant.publicKey}"]],
  cacheMode: "disabled",
  changeDetection: "polling",
  pollInterval: 150,
}));
window.flags = OpenFeature.getClient();
</script></body></html>`);
  });
  const e = await h.tenant.post("/api/experiments", {
    name: "CTA",
    targetUrl: "/",
    variants: [{ name: "control" }, { name: "b" }],
  });
  await h.tenant.patch("/api/experiments", { id: e.body.id, status: "running" });
  await h.tenant.post("/api/flags", {
    key: "cta",
    valueType: "string",
    defaultValue: "Buy",
    rules: [{ type: "experiment", experimentId: e.body.id, variations: ["Buy", "Buy now"] }],
  });
  await h.tenant.post("/api/flags", {
    key: "sale",
    valueType: "boolean",
    defaultValue: false,
    rules: [{ type: "rollout", value: true, coverage: 0.5 }],
  });
}, 60_000);
afterAll(async () => h?.close());

/** What Lift's remote evaluation answers for this person (the attributes the page's context gives). */
async function lift(id: string): Promise<Record<string, unknown>> {
  const res = await h.tenant.post(
    `/api/eval/${h.tenant.publicKey}`,
    { attributes: { id, targetingKey: id, country: "FR" } },
    { as: "none" },
  );
  const features = res.body.features as Record<string, { defaultValue: unknown }>;
  return Object.fromEntries(Object.entries(features).map(([k, f]) => [k, f.defaultValue]));
}

const read = (page: Page) =>
  page.evaluate(() => {
    const flags = (window as any).flags;
    return { cta: flags.getStringDetails("cta", "?"), sale: flags.getBooleanDetails("sale", false) };
  });

describe("OpenFeature's OFREP web provider in Chromium against Lift", () => {
  it("evaluates as Lift's remote evaluation does, also after the context changes", async () => {
    const context = await newVisitor(h);
    const page = await context.newPage();
    const bulk: number[] = [];
    page.on("response", (r) => {
      if (r.url().endsWith("/ofrep/v1/evaluate/flags") && r.request().method() === "POST")
        bulk.push(r.status());
    });
    await page.goto(`${h.siteUrl}/?v=visitor-0`);
    await page.evaluate(() => (window as any).ready);
    const first = await read(page);
    const expected = await lift("visitor-0");
    expect(first.cta.value).toBe(expected.cta);
    expect(first.cta.reason).toBe("SPLIT");
    expect(first.cta.variant).toBe(expected.cta === "Buy now" ? "b" : "control");
    expect(first.sale.value).toBe(expected.sale);
    expect(first.sale.errorCode).toBeUndefined();
    const seen = new Set([`${first.cta.value}/${first.sale.value}`]);
    // Experiment ids are random, so which people share values changes per run: ask until at
    // least three of the four value pairs were seen (7 people alone missed that ~5% of runs).
    for (let i = 1; i <= 6 || (seen.size < 3 && i <= 40); i++) {
      await page.evaluate(
        (key) => (window as any).OpenFeature.setContext({ targetingKey: key, country: "FR" }),
        `visitor-${i}`,
      );
      const now = await read(page);
      const server = await lift(`visitor-${i}`);
      expect(now.cta.value, `visitor-${i}`).toBe(server.cta);
      expect(now.sale.value, `visitor-${i}`).toBe(server.sale);
      expect(now.sale.errorCode).toBeUndefined();
      seen.add(`${now.cta.value}/${now.sale.value}`);
    }
    // Different people get different values: the comparisons above are not of one constant.
    expect(seen.size).toBeGreaterThan(2);
    expect(bulk[0]).toBe(200);
    await context.close();
  });

  it("polls with the ETag it read cross-origin (304), and a flag change reaches the page", async () => {
    const context = await newVisitor(h);
    const page = await context.newPage();
    const bulk: number[] = [];
    page.on("response", (r) => {
      if (r.url().endsWith("/ofrep/v1/evaluate/flags") && r.request().method() === "POST")
        bulk.push(r.status());
    });
    await page.goto(`${h.siteUrl}/?v=poller`);
    await page.evaluate(() => (window as any).ready);
    expect((await read(page)).cta.value).toBe((await lift("poller")).cta);
    await expect.poll(() => bulk.includes(304), { timeout: 5000, interval: 50 }).toBe(true);
    await h.tenant.patch("/api/flags/cta", { enabled: false });
    // Switched off, the flag serves its default to everyone: no variant any more.
    await page.waitForFunction(
      () => (window as any).flags.getStringDetails("cta", "?").reason === "STATIC",
      undefined,
      { timeout: 5000 },
    );
    expect((await read(page)).cta).toMatchObject({ value: "Buy", variant: undefined });
    expect(bulk.lastIndexOf(200)).toBeGreaterThan(bulk.indexOf(304));
    await context.close();
  });
});
