import { createHash } from "node:crypto";
import { GrowthBook } from "@growthbook/growthbook";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type Tenant, type TestApp } from "../../../test/helpers/app.js";

/**
 * A flag's rollouts carry their hashing scheme: PostHog's (SHA-1) for flags moved from PostHog,
 * GrowthBook's (FNV-1a) by default. Every Lift evaluation follows the flag's scheme, and the
 * GrowthBook payload never lets a local SDK compute a PostHog-hashed flag with the other hash.
 */
let t: TestApp;
let a: Tenant;
beforeAll(async () => {
  t = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
  a = await t.tenant();
});
afterAll(async () => t.close());

/**
 * PostHog's documented rollout formula, written here from its definition: SHA-1 of
 * "<flag key>.<distinct_id><salt>", the first 15 hex digits over 0xFFFFFFFFFFFFFFF; a person is in
 * a rollout of p% when that is ≤ p / 100.
 */
function reference(key: string, id: string, salt = ""): number {
  const hex = createHash("sha1").update(`${key}.${id}${salt}`).digest("hex");
  return Number.parseInt(hex.slice(0, 15), 16) / Number(0xfffffffffffffffn);
}

const IDS = Array.from({ length: 200 }, (_, i) => `person-${i}`);

async function create(body: Record<string, unknown>) {
  const res = await a.post("/api/flags", body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function remoteEval(id: string): Promise<Record<string, unknown>> {
  const res = await a.post(`/api/eval/${a.publicKey}`, { attributes: { id } }, { as: "none" });
  expect(res.status).toBe(200);
  const features = res.body.features as Record<string, { defaultValue: unknown }>;
  return Object.fromEntries(Object.entries(features).map(([k, f]) => [k, f.defaultValue]));
}

describe("a flag's hashing scheme", () => {
  beforeAll(async () => {
    await create({
      key: "ph.rollout",
      valueType: "boolean",
      defaultValue: false,
      hashing: "posthog",
      rules: [{ type: "rollout", value: true, coverage: 0.3 }],
    });
    await create({
      key: "gb-rollout",
      valueType: "boolean",
      defaultValue: false,
      rules: [{ type: "rollout", value: true, coverage: 0.3 }],
    });
    await create({ key: "plain", valueType: "string", defaultValue: "x", hashing: "posthog" });
  });

  it("is stored, shown, defaulted to growthbook and checked", async () => {
    expect((await a.get("/api/flags/ph.rollout")).body.hashing).toBe("posthog");
    expect((await a.get("/api/flags/gb-rollout")).body.hashing).toBe("growthbook");
    const bad = await a.post("/api/flags", {
      key: "bad",
      valueType: "boolean",
      defaultValue: false,
      hashing: "md5",
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/hashing/);
    const patched = await a.patch("/api/flags/plain", { hashing: "growthbook" });
    expect(patched.status).toBe(200);
    expect(patched.body.hashing).toBe("growthbook");
    expect((await a.patch("/api/flags/plain", { hashing: "posthog" })).body.hashing).toBe("posthog");
  });

  it("a posthog-hashed 30% rollout puts the same 200 people in as PostHog's formula, everywhere Lift evaluates", async () => {
    let inside = 0;
    for (const id of IDS) {
      const expected = reference("ph.rollout", id) <= 0.3;
      if (expected) inside++;
      expect((await remoteEval(id))["ph.rollout"], `remote eval ${id}`).toBe(expected);
      const one = await a.post("/api/flags/ph.rollout/evaluate", { attributes: { id } });
      expect(one.body.value, `evaluate ${id}`).toBe(expected);
      expect(one.body.source).toBe(expected ? "rollout" : "defaultValue");
      const ofrep = await a.post(
        "/ofrep/v1/evaluate/flags/ph.rollout",
        { context: { targetingKey: id } },
        { as: "none", headers: { authorization: `Bearer ${a.publicKey}` } },
      );
      expect(ofrep.body.value, `ofrep ${id}`).toBe(expected);
      const ph = await a.post(
        "/flags",
        { api_key: a.publicKey, distinct_id: id },
        { as: "none", query: { v: "2" } },
      );
      expect(ph.body.flags["ph.rollout"].enabled, `posthog /flags ${id}`).toBe(expected);
    }
    // Not a degenerate rollout: about 30% of 200.
    expect(inside).toBeGreaterThan(35);
    expect(inside).toBeLessThan(85);
  });

  it("a growthbook-hashed 30% rollout equals the GrowthBook SDK's own evaluation (and differs from PostHog's)", async () => {
    const payload = (await a.get(`/api/features/${a.publicKey}`, { as: "none" })).body;
    let differs = 0;
    for (const id of IDS) {
      const sdk = new GrowthBook({ attributes: { id } }).initSync({ payload });
      const local = sdk.evalFeature("gb-rollout").value;
      expect((await remoteEval(id))["gb-rollout"], id).toBe(local);
      expect((await a.post("/api/flags/gb-rollout/evaluate", { attributes: { id } })).body.value).toBe(local);
      if (local !== reference("gb-rollout", id) <= 0.3) differs++;
    }
    expect(differs).toBeGreaterThan(0);
  });

  it("the GrowthBook payload never gives a posthog-hashed flag's users another value than remote evaluation", async () => {
    const res = await a.get(`/api/features/${a.publicKey}`, { as: "none" });
    expect(res.status).toBe(200);
    // Left out of what local SDKs download (and of the stream, which sends the same body).
    expect(Object.keys(res.body.features)).not.toContain("ph.rollout");
    expect(Object.keys(res.body.features)).not.toContain("plain");
    for (const id of IDS) {
      const sdk = new GrowthBook({ attributes: { id } }).initSync({ payload: res.body });
      const local = sdk.evalFeature("ph.rollout");
      // The SDK knows it has no definition (the app's fallback), never a value hashed otherwise.
      expect(local.source).toBe("unknownFeature");
      expect((await remoteEval(id))["ph.rollout"]).toBe(reference("ph.rollout", id) <= 0.3);
    }
  });

  it('a posthog-hashed flag\'s experiment rule splits as a PostHog multivariate flag (salt "variant", ranges in variant order)', async () => {
    const e = (
      await a.post("/api/experiments", {
        name: "Headline",
        runner: "flag",
        trafficSplit: 80,
        variants: [{ name: "control" }, { name: "short" }, { name: "long" }],
      })
    ).body;
    expect((await a.patch("/api/experiments", { id: e.id, status: "running" })).status).toBe(200);
    await create({
      key: "ph.headline",
      valueType: "string",
      defaultValue: "off",
      hashing: "posthog",
      rules: [{ type: "experiment", experimentId: e.id, variations: ["c", "s", "l"] }],
    });
    const weights = (await a.get(`/api/experiments/${e.id}`)).body.weights as number[];
    const seen = new Set<string>();
    for (const id of IDS) {
      let expected = "off";
      if (reference("ph.headline", id) <= 0.8) {
        // PostHog's lookup table: each variant's range [min, min + pct / 100), in the variants' order.
        const h = reference("ph.headline", id, "variant");
        let min = 0;
        for (const [i, w] of weights.entries()) {
          const max = min + (w * 100) / 100;
          if (h >= min && h < max) expected = ["c", "s", "l"][i]!;
          min = max;
        }
      }
      seen.add(expected);
      expect((await remoteEval(id))["ph.headline"], id).toBe(expected);
      const one = (await a.post("/api/flags/ph.headline/evaluate", { attributes: { id } })).body;
      expect(one.value, id).toBe(expected);
      if (expected !== "off")
        expect(one).toMatchObject({
          source: "experiment",
          variant: ["control", "short", "long"][["c", "s", "l"].indexOf(expected)],
        });
    }
    expect(seen.size).toBe(4);
  });

  it("a caller cannot put itself in a posthog-hashed rollout through the attribute Lift hashes into", async () => {
    const out = IDS.find((id) => reference("ph.rollout", id) > 0.3)!;
    const res = await a.post(
      `/api/eval/${a.publicKey}`,
      { attributes: { id: out, _liftPostHog: { s0: 0 }, "_liftPostHog.s0": 0 } },
      { as: "none" },
    );
    expect(res.body.features["ph.rollout"].defaultValue).toBe(false);
  });
});
