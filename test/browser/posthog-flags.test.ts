import { gunzipSync } from "node:zlib";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, newVisitor, until } from "./harness.js";
import { postHogInit, startPostHogSite } from "./posthog-site.js";

/**
 * posthog-js (its full array bundle, served by the site) pointed at Lift by `api_host` and the
 * public key: its feature flags come from Lift's `/flags`, equal Lift's own remote evaluation for
 * the page's distinct_id, and are asked again for the identified person after `identify`.
 */
let h: Harness;
beforeAll(async () => {
  h = await startPostHogSite(
    (harness) => `window.flagLoads = 0;
        ${postHogInit(harness)}
        posthog.onFeatureFlags(() => { window.flagLoads++; });`,
  );
  const flags = [
    {
      key: "new-checkout",
      valueType: "boolean",
      defaultValue: false,
      rules: [{ type: "rollout", value: true, coverage: 0.5 }],
    },
    {
      key: "vip",
      valueType: "boolean",
      defaultValue: false,
      rules: [{ type: "force", condition: { id: "user-42" }, value: true }],
    },
    {
      key: "headline",
      valueType: "string",
      defaultValue: "Hello",
      rules: [{ type: "force", condition: { id: "user-42" }, value: "Welcome back" }],
    },
    { key: "theme", valueType: "json", defaultValue: { color: "blue" } },
  ];
  for (const f of flags) expect((await h.tenant.post("/api/flags", f)).status).toBe(201);
}, 60_000);
afterAll(async () => h?.close());

/** What Lift's remote evaluation answers for this id: each flag's value. */
async function remoteEval(id: string): Promise<Record<string, unknown>> {
  const res = await h.tenant.post(`/api/eval/${h.tenant.publicKey}`, { attributes: { id } }, { as: "none" });
  const features = res.body.features as Record<string, { defaultValue: unknown }>;
  return Object.fromEntries(Object.entries(features).map(([k, f]) => [k, f.defaultValue]));
}

/** What the page's posthog-js says of each flag. */
const pageFlags = (page: Page) =>
  page.evaluate(() => {
    const ph = (window as any).posthog;
    return {
      id: ph.get_distinct_id() as string,
      newCheckout: ph.isFeatureEnabled("new-checkout"),
      vip: ph.isFeatureEnabled("vip"),
      headline: ph.getFeatureFlag("headline"),
      theme: ph.getFeatureFlagPayload("theme"),
    };
  });

describe("posthog-js feature flags in Chromium against Lift", () => {
  it("onFeatureFlags, then the page's flags are Lift's evaluation; identify asks again for the identified id", async () => {
    const context = await newVisitor(h);
    const page = await context.newPage();
    const flagsAsked: string[] = [];
    const errors: string[] = [];
    page.on("request", (r) => {
      if (!r.url().startsWith(`${h.api}/flags`)) return;
      const body = r.postDataBuffer() ?? Buffer.alloc(0);
      const json = body[0] === 0x1f && body[1] === 0x8b ? gunzipSync(body) : body;
      flagsAsked.push(JSON.parse(json.toString("utf8")).distinct_id);
    });
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    await page.goto(h.siteUrl);
    await page.waitForFunction(() => (window as any).flagLoads > 0);
    const before = await pageFlags(page);
    const lift = await remoteEval(before.id);
    expect(before).toEqual({
      id: before.id,
      newCheckout: lift["new-checkout"],
      vip: false,
      headline: "Hello",
      theme: { color: "blue" },
    });
    // The remote config says flags exist: posthog-js asked for them on load, for this page's id.
    expect(flagsAsked).toContain(before.id);

    const loads = await page.evaluate(() => (window as any).flagLoads as number);
    await page.evaluate(() => (window as any).posthog.identify("user-42"));
    await page.waitForFunction((n) => (window as any).flagLoads > n, loads);
    await until(async () => (await pageFlags(page)).vip === true, "the identified person's flags");
    const after = await pageFlags(page);
    const liftAfter = await remoteEval("user-42");
    expect(after).toEqual({
      id: "user-42",
      newCheckout: liftAfter["new-checkout"],
      vip: true,
      headline: "Welcome back",
      theme: { color: "blue" },
    });
    expect(flagsAsked).toContain("user-42");
    expect(errors).toEqual([]);
    await context.close();
  }, 20_000);
});
