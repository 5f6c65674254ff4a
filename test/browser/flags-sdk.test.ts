import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { snippetFromDocs } from "../../src/modules/flags/flags.testing.js";
import { type Harness, newVisitor, startHarness, until } from "./harness.js";

/**
 * GrowthBook's browser SDK (its published bundle) in Chromium, on a customer page of another
 * origin, against Lift: local evaluation with streaming, remote evaluation (a CORS preflight),
 * and exposures sent by the documented browser tracking callback.
 */
const BUNDLE = readFileSync(
  path.resolve(
    path.dirname(fileURLToPath(import.meta.url)),
    "../../node_modules/@growthbook/growthbook/dist/bundles/index.min.js",
  ),
  "utf8",
);

let h: Harness;
let experimentId = "";

beforeAll(async () => {
  h = await startHarness((req, res, harness) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname === "/gb.js") {
      res.setHeader("content-type", "application/javascript");
      return void res.end(BUNDLE);
    }
    const remote = url.searchParams.get("remote") === "1";
    res.setHeader("content-type", "text/html; charset=utf-8");
    res.end(`<!doctype html><html><head><title>Shop</title><script src="/gb.js"></script></head>
<body><h1>Shop</h1><script>
const LIFT_URL = ${JSON.stringify(harness.api)};
const LIFT_PUBLIC_KEY = ${JSON.stringify(harness.tenant.publicKey)};
${snippetFromDocs("browser-tracking")}
window.tracked = [];
const gb = new growthbook.GrowthBook({
  apiHost: LIFT_URL,
  clientKey: LIFT_PUBLIC_KEY,
  attributes: { id: ${JSON.stringify(url.searchParams.get("v") ?? "anonymous")}, country: "FR" },
  remoteEval: ${remote},
  trackingCallback: (e, r) => { window.tracked.push(r.key); return trackingCallback(e, r); },
});
window.gb = gb;
window.ready = gb.init({ streaming: ${!remote}, timeout: 5000 });
</script></body></html>`);
  });
  const e = await h.tenant.post("/api/experiments", {
    name: "Banner",
    targetUrl: "/",
    variants: [{ name: "control" }, { name: "b" }],
  });
  experimentId = e.body.id;
  await h.tenant.patch("/api/experiments", { id: experimentId, status: "running" });
  await h.tenant.post("/api/flags", {
    key: "banner",
    valueType: "string",
    defaultValue: "none",
    rules: [{ type: "experiment", experimentId, variations: ["blue", "red"] }],
  });
  await h.tenant.post("/api/flags", { key: "sale", valueType: "boolean", defaultValue: false });
}, 60_000);

afterAll(async () => {
  await h?.close();
});

async function open(page: Page, query: string) {
  await page.goto(`${h.siteUrl}/?${query}`);
  const init = await page.evaluate(() => (window as any).ready);
  expect(init.success).toBe(true);
}

const value = (page: Page, key: string) =>
  page.evaluate((k) => (window as any).gb.getFeatureValue(k, null), key);

describe("GrowthBook's browser SDK against Lift (Chromium)", () => {
  it("streams: a PATCH reaches the page in under 1 s", async () => {
    const context = await newVisitor(h);
    const page = await context.newPage();
    await open(page, "v=streamer");
    expect(await value(page, "sale")).toBe(false);
    // The stream opens after the first fetch; a first change shows it is live.
    await h.tenant.patch("/api/flags/sale", {
      description: "warm-up",
      rules: [{ type: "force", value: false }],
    });
    await until(
      async () => (await page.evaluate(() => (window as any).gb.evalFeature("sale").source)) === "force",
      "the warm-up change",
    );
    const started = performance.now();
    await h.tenant.patch("/api/flags/sale", { rules: [{ type: "force", value: true }] });
    await page.waitForFunction(() => (window as any).gb.getFeatureValue("sale", null) === true, undefined, {
      timeout: 5000,
      polling: 5,
    });
    expect(performance.now() - started).toBeLessThan(1000);
    await context.close();
  });

  it("remote evaluation from the page (cross-origin POST with a preflight) gives the server's answer", async () => {
    const context = await newVisitor(h);
    const page = await context.newPage();
    await open(page, "v=remote-visitor&remote=1");
    const server = (
      await h.tenant.post("/api/flags/banner/evaluate", {
        attributes: { id: "remote-visitor", country: "FR" },
      })
    ).body;
    expect(await value(page, "banner")).toBe(server.value);
    // The page got values only: no rule, so no other variation's value.
    const payload = JSON.stringify(await page.evaluate(() => (window as any).gb.getPayload()));
    expect(payload).not.toContain(server.value === "red" ? "blue" : "red");
    await context.close();
  });

  it("the documented browser tracking callback's exposures are what the experiment's results count", async () => {
    // An experiment of its own: the remote-evaluation page above was exposed to "banner"'s.
    const e = await h.tenant.post("/api/experiments", {
      name: "CTA",
      targetUrl: "/",
      variants: [{ name: "control" }, { name: "b" }],
    });
    const ctaExperiment = e.body.id as string;
    await h.tenant.patch("/api/experiments", { id: ctaExperiment, status: "running" });
    await h.tenant.post("/api/flags", {
      key: "cta",
      valueType: "string",
      defaultValue: "Buy",
      rules: [{ type: "experiment", experimentId: ctaExperiment, variations: ["Buy", "Buy now"] }],
    });
    const assigned: Record<string, number> = { control: 0, b: 0 };
    for (let i = 0; i < 6; i++) {
      const context = await newVisitor(h);
      const page = await context.newPage();
      await open(page, `v=browser-visitor-${i}`);
      const r = await page.evaluate(() => (window as any).gb.evalFeature("cta"));
      expect(r.source).toBe("experiment");
      assigned[r.experimentResult.key]!++;
      // Reading the flag again in the page tracks nothing more.
      await page.evaluate(() => (window as any).gb.getFeatureValue("cta", null));
      expect(await page.evaluate(() => (window as any).tracked)).toEqual([r.experimentResult.key]);
      await context.close();
    }
    const counted = await until(async () => {
      const res = (await h.tenant.get(`/api/experiments/${ctaExperiment}`)).body.results;
      const total = res.variants.reduce((n: number, v: { exposures: number }) => n + v.exposures, 0);
      return total >= 6 ? res : undefined;
    }, "the exposures");
    expect(counted.variants.map((v: { name: string; exposures: number }) => [v.name, v.exposures])).toEqual([
      ["control", assigned.control],
      ["b", assigned.b],
    ]);
  });
});
