import type { AddressInfo } from "node:net";
import { PostHog } from "posthog-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type Tenant, type TestApp } from "../../../../test/helpers/app.js";

/**
 * posthog-node evaluating Lift's flags locally (`personalApiKey` = the project's secret key), from
 * the definitions Lift serves: equal to Lift's remote evaluation for every person, and the flags
 * that do not map marked for remote evaluation.
 */
let t: TestApp;
let base: string;
let a: Tenant;
const clients: PostHog[] = [];
beforeAll(async () => {
  t = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  a = await t.tenant();
  const e = (
    await a.post("/api/experiments", {
      name: "Headline",
      runner: "flag",
      trafficSplit: 80,
      variants: [{ name: "control" }, { name: "short" }, { name: "long" }],
    })
  ).body;
  expect((await a.patch("/api/experiments", { id: e.id, status: "running" })).status).toBe(200);
  const flags = [
    { key: "on", valueType: "boolean", defaultValue: false, rules: [{ type: "force", value: true }] },
    {
      key: "off",
      valueType: "boolean",
      defaultValue: false,
      enabled: false,
      rules: [{ type: "force", value: true }],
    },
    {
      key: "ph-rollout",
      valueType: "boolean",
      defaultValue: false,
      hashing: "posthog",
      rules: [{ type: "rollout", value: true, coverage: 0.3 }],
    },
    {
      key: "pro",
      valueType: "boolean",
      defaultValue: false,
      rules: [{ type: "force", condition: { plan: { $ini: ["pro", "team"] } }, value: true }],
    },
    {
      key: "ph-split",
      valueType: "string",
      defaultValue: "",
      hashing: "posthog",
      rules: [
        { type: "force", condition: { plan: { $ini: ["team"] } }, value: "team-copy" },
        { type: "experiment", experimentId: e.id, variations: ["c", "s", "l"] },
      ],
    },
    // Not mappable: GrowthBook's hashing, a case-sensitive condition, a number.
    {
      key: "gb-rollout",
      valueType: "boolean",
      defaultValue: false,
      rules: [{ type: "rollout", value: true, coverage: 0.3 }],
    },
    {
      key: "exact-case",
      valueType: "boolean",
      defaultValue: false,
      rules: [{ type: "force", condition: { plan: "pro" }, value: true }],
    },
    { key: "count", valueType: "number", defaultValue: 3 },
  ];
  for (const f of flags) expect((await a.post("/api/flags", f)).status, f.key).toBe(201);
});
afterAll(async () => {
  for (const c of clients) await c.shutdown();
  await t.close();
});

const MAPPED = ["on", "off", "ph-rollout", "pro", "ph-split"];
const UNMAPPED = ["gb-rollout", "exact-case", "count"];
const PLANS = ["pro", "PRO", "free", "team"];

const definitions = (path: string, key: string | null, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}?token=${a.publicKey}&send_cohorts`, {
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
  });

async function remoteEval(attributes: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await a.post(`/api/eval/${a.publicKey}`, { attributes }, { as: "none" });
  expect(res.status).toBe(200);
  const features = res.body.features as Record<string, { defaultValue: unknown }>;
  return Object.fromEntries(Object.entries(features).map(([k, f]) => [k, f.defaultValue]));
}
const asPostHog = (v: unknown) =>
  typeof v === "boolean" ? v : typeof v === "string" ? (v === "" ? false : v) : v !== null;

describe("PostHog's local-evaluation definitions", () => {
  it("serve the mappable flags in PostHog's format, to the secret key only, on both paths, with an ETag", async () => {
    const res = await definitions("/flags/definitions", a.apiKey);
    expect(res.status).toBe(200);
    const body = await res.json();
    const marked = (f: { ensure_experience_continuity?: boolean }) => f.ensure_experience_continuity === true;
    expect(
      body.flags
        .filter((f: never) => !marked(f))
        .map((f: { key: string }) => f.key)
        .sort(),
    ).toEqual([...MAPPED].sort());
    // The others are named, with no rule, marked for the SDK to ask /flags.
    expect(
      body.flags.filter(marked).map((f: { key: string; filters: unknown }) => [f.key, f.filters]),
    ).toEqual([...UNMAPPED].sort().map((k) => [k, { groups: [], payloads: {} }]));
    expect(body).toMatchObject({ group_type_mapping: {}, cohorts: {} });
    const split = body.flags.find((f: { key: string }) => f.key === "ph-split");
    expect(split.filters.groups).toEqual([
      {
        properties: [{ key: "plan", value: ["team"], operator: "exact", type: "person" }],
        rollout_percentage: 100,
        variant: "team-copy",
      },
      { properties: [], rollout_percentage: 80 },
    ]);
    expect(split.filters.multivariate.variants.map((v: { key: string }) => v.key)).toEqual([
      "c",
      "s",
      "l",
      "team-copy",
    ]);
    const other = await definitions("/api/feature_flag/local_evaluation", a.apiKey);
    expect(await other.json()).toEqual(body);
    const again = await definitions("/flags/definitions", a.apiKey, {
      "if-none-match": res.headers.get("etag")!,
    });
    expect(again.status).toBe(304);
    for (const key of [a.publicKey, null, "svc_key_unknown"]) {
      const refused = await definitions("/flags/definitions", key);
      expect(refused.status, String(key)).toBe(401);
      expect((await refused.json()).code).toBe("UNAUTHORIZED");
    }
  });

  it("posthog-node's local answers equal Lift's remote evaluation for 200 people; unmapped flags come remotely and equal too", async () => {
    const client = new PostHog(a.publicKey, {
      host: base,
      personalApiKey: a.apiKey,
      flushAt: 50,
      flushInterval: 0,
      fetchRetryCount: 0,
      featureFlagsPollingInterval: 60_000,
    });
    clients.push(client);
    const errors: unknown[] = [];
    client.on("error", (e) => errors.push(e));
    expect(await client.waitForLocalEvaluationReady(5_000)).toBe(true);
    const quiet = { sendFeatureFlagEvents: false } as const;
    const seen = new Set<unknown>();
    for (let i = 0; i < 200; i++) {
      const id = `person-${i}`;
      const personProperties = { plan: PLANS[i % PLANS.length]! };
      const remote = await remoteEval({ id, ...personProperties });
      for (const key of MAPPED) {
        const local = await client.getFeatureFlag(key, id, {
          personProperties,
          onlyEvaluateLocally: true,
          ...quiet,
        });
        expect(local, `${key} ${id}`).toBe(asPostHog(remote[key]));
        if (key === "ph-split") seen.add(local);
      }
      for (const key of UNMAPPED) {
        expect(
          await client.getFeatureFlag(key, id, { personProperties, onlyEvaluateLocally: true, ...quiet }),
        ).toBeUndefined();
        const value = await client.getFeatureFlag(key, id, { personProperties, ...quiet });
        expect(value, `${key} ${id}`).toBe(asPostHog(remote[key]));
      }
    }
    // Every variant, the forced one and "not in the experiment" were seen.
    expect(seen).toEqual(new Set(["c", "s", "l", "team-copy", false]));
    expect(errors).toEqual([]);
  });
});
