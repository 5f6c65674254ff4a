import type { AddressInfo } from "node:net";
import { PostHog } from "posthog-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type Tenant, type TestApp } from "../../../../test/helpers/app.js";
import { seedCohortProject } from "../../analytics/filters/filter-fixture.testing.js";

/**
 * A cohort-targeted flag and posthog-node evaluating locally (`personalApiKey`): its definition
 * makes the SDK ask Lift for that flag (PostHog's members never leave the server), so every call,
 * `getAllFlags` included, gives Lift's own answer for members and non-members.
 * filter-fixture.testing.ts's people: phone bought ("Buyers" = {phone}); laptop only looked.
 */
let t: TestApp;
let base: string;
let a: Tenant;
let buyers: string;
const clients: PostHog[] = [];
const PEOPLE = ["phone", "laptop", "mac", "L1", "Lmac"];
beforeAll(async () => {
  t = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  a = await t.tenant();
  ({ buyers } = await seedCohortProject(a));
  const flags = [
    { key: "on", valueType: "boolean", defaultValue: false, rules: [{ type: "force", value: true }] },
    {
      key: "buyers-only",
      valueType: "boolean",
      defaultValue: false,
      rules: [{ type: "force", condition: { id: { $inGroup: buyers } }, value: true }],
    },
    {
      key: "not-buyers",
      valueType: "string",
      defaultValue: "",
      rules: [{ type: "force", condition: { id: { $notInGroup: buyers } }, value: "upsell" }],
    },
  ];
  for (const f of flags) expect((await a.post("/api/flags", f)).status, f.key).toBe(201);
  // The cohort's first membership is computed on a reader thread that may still be starting on a
  // loaded machine: asked once here (kept a minute), the SDK's calls below find it ready.
  for (let i = 0; i < 5; i++) {
    const res = await a.post("/api/flags/buyers-only/evaluate", { attributes: { id: "phone" } });
    if (res.status === 200) break;
  }
}, 60_000);
afterAll(async () => {
  for (const c of clients) await c.shutdown();
  await t.close();
});

async function localClient(): Promise<PostHog> {
  const client = new PostHog(a.publicKey, {
    host: base,
    personalApiKey: a.apiKey,
    flushAt: 50,
    flushInterval: 0,
    fetchRetryCount: 0,
    featureFlagsPollingInterval: 60_000,
    featureFlagsRequestTimeoutMs: 10_000,
  });
  clients.push(client);
  expect(await client.waitForLocalEvaluationReady(5_000)).toBe(true);
  return client;
}

const quiet = { sendFeatureFlagEvents: false } as const;

describe("a cohort-targeted flag and posthog-node's local evaluation", () => {
  it("each call gives Lift's answer for members and non-members, getAllFlags included", async () => {
    const client = await localClient();
    expect(await client.getFeatureFlag("buyers-only", "phone", quiet)).toBe(true);
    expect(await client.getFeatureFlag("buyers-only", "laptop", quiet)).toBe(false);
    expect(await client.getFeatureFlag("not-buyers", "phone", quiet)).toBe(false);
    expect(await client.getFeatureFlag("not-buyers", "laptop", quiet)).toBe("upsell");
    // getAllFlags evaluates locally what it can; the cohort flags must still be there, with
    // Lift's values, not missing because every flag the SDK knows was resolved locally.
    expect(await client.getAllFlags("phone")).toEqual({ on: true, "buyers-only": true, "not-buyers": false });
    expect(await client.getAllFlags("laptop")).toEqual({
      on: true,
      "buyers-only": false,
      "not-buyers": "upsell",
    });
    // Only locally: the cohort flags are left unresolved, never answered with an empty cohort.
    const local = { onlyEvaluateLocally: true, ...quiet };
    expect(await client.getFeatureFlag("on", "phone", local)).toBe(true);
    expect(await client.getFeatureFlag("buyers-only", "phone", local)).toBeUndefined();
    expect(await client.getFeatureFlag("not-buyers", "phone", local)).toBeUndefined();
  }, 30_000);

  it("no answer an SDK downloads holds a member's id: definitions, GrowthBook's payload, remote evaluation", async () => {
    const texts = [
      await (
        await fetch(`${base}/flags/definitions?token=${a.publicKey}&send_cohorts`, {
          headers: { authorization: `Bearer ${a.apiKey}` },
        })
      ).text(),
      await (await fetch(`${base}/api/features/${a.publicKey}`)).text(),
      JSON.stringify(
        (await a.post(`/api/eval/${a.publicKey}`, { attributes: { id: "laptop" } }, { as: "none" })).body,
      ),
    ];
    for (const text of texts) {
      expect(text).toContain("buyers-only");
      for (const id of PEOPLE) expect(text, id).not.toMatch(new RegExp(`"${id}"`));
    }
  });
});
