import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { PostHog } from "posthog-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type Tenant, type TestApp } from "../../../../test/helpers/app.js";

/**
 * PostHog's Node SDK (posthog-node, remote evaluation: no personal API key) pointed at Lift by
 * `host` and the key alone, compared with Lift's own remote evaluation (POST /api/eval/:clientKey).
 */
let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => t.close());

const clients: PostHog[] = [];
afterAll(async () => {
  for (const c of clients) await c.shutdown();
});
function sdk(key: string): { client: PostHog; errors: unknown[] } {
  const client = new PostHog(key, { host: base, flushAt: 50, flushInterval: 0, fetchRetryCount: 0 });
  clients.push(client);
  const errors: unknown[] = [];
  client.on("error", (e) => errors.push(e));
  return { client, errors };
}
/** No `$feature_flag_called` events: these tests are about the flags. */
const quiet = { sendFeatureFlagEvents: false } as const;

/** What Lift's remote evaluation answers for these attributes: each flag's value. */
async function remoteEval(a: Tenant, attributes: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await a.post(`/api/eval/${a.publicKey}`, { attributes }, { as: "none" });
  expect(res.status).toBe(200);
  const features = res.body.features as Record<string, { defaultValue: unknown }>;
  return Object.fromEntries(Object.entries(features).map(([k, f]) => [k, f.defaultValue]));
}

/** A Lift value as PostHog's SDK gives it: a boolean as it is, a string as the variant, else on. */
const asPostHog = (v: unknown) =>
  typeof v === "boolean" ? v : typeof v === "string" ? (v === "" ? false : v) : v !== null;

const FLAGS = [
  {
    key: "dark-mode",
    valueType: "boolean",
    defaultValue: false,
    rules: [{ type: "force", condition: { plan: "pro" }, value: true }],
  },
  {
    key: "new-checkout",
    valueType: "boolean",
    defaultValue: false,
    rules: [{ type: "rollout", value: true, coverage: 0.5 }],
  },
  {
    key: "headline",
    valueType: "string",
    defaultValue: "Hello",
    rules: [{ type: "force", condition: { plan: "pro" }, value: "Hello, pro" }],
  },
  { key: "max-items", valueType: "number", defaultValue: 10 },
  {
    key: "theme",
    valueType: "json",
    defaultValue: { color: "blue" },
    rules: [{ type: "force", condition: { plan: "pro" }, value: { color: "red", dense: true } }],
  },
];
async function withFlags(): Promise<Tenant> {
  const a = await t.tenant();
  for (const f of FLAGS) expect((await a.post("/api/flags", f)).status).toBe(201);
  return a;
}

describe("posthog-node (remote evaluation) against Lift", () => {
  it("isFeatureEnabled, getFeatureFlag, getFeatureFlagPayload and getAllFlags equal Lift's evaluation for 50 people", async () => {
    const a = await withFlags();
    const { client, errors } = sdk(a.publicKey);
    let rolledOut = 0;
    for (let i = 0; i < 50; i++) {
      const id = `user-${i}`;
      const plan = i % 2 === 0 ? "pro" : "free";
      const options = { ...quiet, personProperties: { plan } };
      const lift = await remoteEval(a, { id, plan });
      const expected = Object.fromEntries(Object.entries(lift).map(([k, v]) => [k, asPostHog(v)]));
      expect(await client.getAllFlags(id, options), id).toEqual(expected);
      expect(await client.isFeatureEnabled("new-checkout", id, options), id).toBe(lift["new-checkout"]);
      expect(await client.isFeatureEnabled("dark-mode", id, options), id).toBe(lift["dark-mode"]);
      expect(await client.getFeatureFlag("headline", id, options), id).toBe(lift.headline);
      expect(await client.getFeatureFlagPayload("theme", id, undefined, options), id).toEqual(lift.theme);
      if (lift["new-checkout"]) rolledOut++;
    }
    // The rollout splits the 50 people: the comparison covered both of its values.
    expect(rolledOut).toBeGreaterThan(5);
    expect(rolledOut).toBeLessThan(45);
    const both = await client.getAllFlagsAndPayloads("user-0", {
      ...quiet,
      personProperties: { plan: "pro" },
    });
    expect(both.featureFlagPayloads).toMatchObject({
      headline: "Hello, pro",
      "max-items": 10,
      theme: { color: "red", dense: true },
    });
    expect(both.featureFlagPayloads).not.toHaveProperty("dark-mode");
    expect(errors).toEqual([]);
  });

  it("an unknown flag is undefined; the secret key gets the same answers as the public key", async () => {
    const a = await withFlags();
    const pub = sdk(a.publicKey);
    const secret = sdk(a.apiKey);
    expect(await pub.client.getFeatureFlag("no-such-flag", "user-1", quiet)).toBeUndefined();
    expect(await pub.client.isFeatureEnabled("no-such-flag", "user-1", quiet)).toBeUndefined();
    expect(
      await pub.client.getFeatureFlagPayload("no-such-flag", "user-1", undefined, quiet),
    ).toBeUndefined();
    const props = { ...quiet, personProperties: { plan: "pro" } };
    expect(await secret.client.getAllFlags("user-7", props)).toEqual(
      await pub.client.getAllFlags("user-7", props),
    );
    expect(pub.errors).toEqual([]);
    expect(secret.errors).toEqual([]);
  });

  it("an unknown key: the SDK's error path, undefined and empty flags, no throw", async () => {
    await withFlags();
    const { client, errors } = sdk("svc_pk_doesnotexist");
    expect(await client.getFeatureFlag("dark-mode", "user-1", quiet)).toBeUndefined();
    expect(await client.isFeatureEnabled("dark-mode", "user-1", quiet)).toBeUndefined();
    expect(await client.getAllFlags("user-1")).toEqual({});
    expect(errors.length).toBeGreaterThan(0);
    expect((errors[0] as { status?: number }).status).toBe(401);
  });
});

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(base + path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body:
      typeof body === "string" ? body : Buffer.isBuffer(body) ? new Uint8Array(body) : JSON.stringify(body),
  });

describe("POST /flags and /decide", () => {
  it("/flags?v=2 answers PostHog's flag details: variant, reason, the payload as JSON text", async () => {
    const a = await withFlags();
    const res = await post("/flags/?v=2", {
      token: a.publicKey,
      distinct_id: "user-0",
      person_properties: { plan: "pro" },
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.errorsWhileComputingFlags).toBe(false);
    expect(typeof body.requestId).toBe("string");
    expect(body.flags["dark-mode"]).toMatchObject({
      key: "dark-mode",
      enabled: true,
      reason: { code: "condition_match" },
    });
    expect(body.flags["dark-mode"].variant).toBeUndefined();
    expect(body.flags.headline).toMatchObject({
      enabled: true,
      variant: "Hello, pro",
      metadata: { payload: JSON.stringify("Hello, pro") },
    });
    expect(body.flags.theme.metadata.payload).toBe(JSON.stringify({ color: "red", dense: true }));
    const free = await (
      await post("/flags?v=2", {
        api_key: a.publicKey,
        distinct_id: "user-1",
        flag_keys_to_evaluate: ["dark-mode"],
      })
    ).json();
    expect(Object.keys(free.flags)).toEqual(["dark-mode"]);
    expect(free.flags["dark-mode"]).toMatchObject({ enabled: false, reason: { code: "no_condition_match" } });
  });

  it("groups and group properties are attributes; distinct_id is `id` whatever the person properties say", async () => {
    const a = await t.tenant();
    const flag = (key: string, condition: Record<string, unknown>) =>
      a.post("/api/flags", {
        key,
        valueType: "boolean",
        defaultValue: false,
        rules: [{ type: "force", condition, value: true }],
      });
    expect((await flag("acme-only", { "groups.company": "acme" })).status).toBe(201);
    expect((await flag("enterprise", { "groupProperties.company.tier": "enterprise" })).status).toBe(201);
    expect((await flag("just-me", { id: "user-9" })).status).toBe(201);
    const res = await post("/flags/?v=2", {
      token: a.publicKey,
      distinct_id: "user-1",
      person_properties: { id: "user-9" },
      groups: { company: "acme" },
      group_properties: { company: { tier: "enterprise" } },
    });
    const { flags } = await res.json();
    expect(flags["acme-only"].enabled).toBe(true);
    expect(flags.enterprise.enabled).toBe(true);
    expect(flags["just-me"].enabled).toBe(false);
  });

  it("/decide?v=3 and /flags?v=1 answer the legacy featureFlags and featureFlagPayloads", async () => {
    const a = await withFlags();
    const body = { token: a.publicKey, distinct_id: "user-0", person_properties: { plan: "pro" } };
    for (const path of ["/decide/?v=3", "/decide?v=3", "/flags/?v=1"]) {
      const res = await post(path, body);
      expect(res.status, path).toBe(200);
      const json = await res.json();
      expect(json.featureFlags, path).toMatchObject({
        "dark-mode": true,
        headline: "Hello, pro",
        "max-items": true,
      });
      expect(json.featureFlagPayloads, path).toMatchObject({
        theme: JSON.stringify({ color: "red", dense: true }),
      });
      expect(json.errorsWhileComputingFlags).toBe(false);
    }
    const v4 = await (await post("/decide/?v=4", body)).json();
    expect(v4.flags["dark-mode"].enabled).toBe(true);
  });

  it("a gzip-js body (posthog-js) and a base64 form are read as the JSON they carry", async () => {
    const a = await withFlags();
    const json = JSON.stringify({
      token: a.publicKey,
      distinct_id: "user-0",
      person_properties: { plan: "pro" },
    });
    const gz = await post("/flags/?v=2&compression=gzip-js&ver=1.449.2&_=1", gzipSync(json), {
      "content-type": "text/plain",
    });
    expect(gz.status).toBe(200);
    expect((await gz.json()).flags["dark-mode"].enabled).toBe(true);
    const form = await post(
      "/flags/?v=2&compression=base64",
      `data=${encodeURIComponent(Buffer.from(json).toString("base64"))}`,
      { "content-type": "application/x-www-form-urlencoded" },
    );
    expect(form.status).toBe(200);
  });

  it("bad bodies are 400 (or 401 without a key, 413 too large), never 500", async () => {
    const a = await withFlags();
    const key = a.publicKey;
    const cases: [string, string | Buffer, Record<string, string>, number][] = [
      ["not JSON", "{", {}, 400],
      ["no key", JSON.stringify({ distinct_id: "u" }), {}, 401],
      ["an array", "[1,2]", {}, 401],
      ["unknown key", JSON.stringify({ token: "svc_pk_nope", distinct_id: "u" }), {}, 401],
      ["no distinct_id", JSON.stringify({ token: key }), {}, 400],
      ["distinct_id an object", JSON.stringify({ token: key, distinct_id: { a: 1 } }), {}, 400],
      [
        "person_properties a string",
        JSON.stringify({ token: key, distinct_id: "u", person_properties: "x" }),
        {},
        400,
      ],
      ["groups an array", JSON.stringify({ token: key, distinct_id: "u", groups: [1] }), {}, 400],
      [
        "too deep",
        JSON.stringify({
          token: key,
          distinct_id: "u",
          person_properties: { a: { b: { c: { d: { e: { f: { g: { h: { i: 1 } } } } } } } } },
        }),
        {},
        400,
      ],
      [
        "a multi-line attribute too long",
        JSON.stringify({ token: key, distinct_id: "u", person_properties: { v: `${"+".repeat(300)}\n` } }),
        {},
        400,
      ],
      ["not gzip", Buffer.from("\x1f\x8bnot gzip"), { "content-type": "text/plain" }, 400],
      [
        "too large",
        JSON.stringify({ token: key, distinct_id: "u", person_properties: { x: "y".repeat(70_000) } }),
        {},
        413,
      ],
    ];
    for (const [name, body, headers, status] of cases) {
      const res = await post("/flags/?v=2", body, headers);
      expect(res.status, name).toBe(status);
      const json = await res.json();
      expect(json, name).toMatchObject({ status, code: expect.any(String), requestId: expect.any(String) });
    }
  });
});
