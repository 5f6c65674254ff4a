import type { AddressInfo } from "node:net";
import { OFREPProvider } from "@openfeature/ofrep-provider";
import { type EvaluationContext, OpenFeature } from "@openfeature/server-sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type Tenant, type TestApp } from "../../../../test/helpers/app.js";
import { snippetFromDocs, until } from "../flags.testing.js";

/**
 * OpenFeature's OFREP server provider (@openfeature/ofrep-provider) over HTTP against Lift's
 * /ofrep/v1, compared with Lift's own remote evaluation (POST /api/eval/:clientKey).
 */
let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await OpenFeature.close();
  await t.close();
});

let domains = 0;
/** An OpenFeature client of its own (a domain per provider) over OFREP with these headers. */
async function client(headers: Record<string, string>) {
  const domain = `ofrep-${++domains}`;
  await OpenFeature.setProviderAndWait(domain, new OFREPProvider({ baseUrl: base, headers }));
  return OpenFeature.getClient(domain);
}
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });

/** What Lift's remote evaluation answers for these attributes: each flag's value. */
async function remoteEval(a: Tenant, attributes: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await a.post(`/api/eval/${a.publicKey}`, { attributes }, { as: "none" });
  expect(res.status).toBe(200);
  const features = res.body.features as Record<string, { defaultValue: unknown }>;
  return Object.fromEntries(Object.entries(features).map(([k, f]) => [k, f.defaultValue]));
}

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(base + path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

async function runningExperiment(a: Tenant, extra: Record<string, unknown> = {}) {
  const e = await a.post("/api/experiments", {
    name: "Checkout copy",
    targetUrl: "/checkout",
    variants: [{ name: "control" }, { name: "b" }],
    ...extra,
  });
  await a.patch("/api/experiments", { id: e.body.id, status: "running" });
  return e.body.id as string;
}

describe("OFREP with OpenFeature's server provider", () => {
  it("boolean, string, number and object flags resolve to what remote evaluation answers", async () => {
    const a = await t.tenant();
    const flags = [
      {
        key: "dark-mode",
        valueType: "boolean",
        defaultValue: false,
        rules: [{ type: "force", condition: { plan: "pro" }, value: true }],
      },
      { key: "headline", valueType: "string", defaultValue: "Hello" },
      {
        key: "max-items",
        valueType: "number",
        defaultValue: 10,
        rules: [{ type: "force", condition: { country: "FR" }, value: 20 }],
      },
      {
        key: "theme",
        valueType: "json",
        defaultValue: { color: "blue" },
        rules: [{ type: "force", condition: { plan: "pro" }, value: { color: "red", dense: true } }],
      },
    ];
    for (const f of flags) expect((await a.post("/api/flags", f)).status).toBe(201);
    const of = await client(bearer(a.publicKey));
    for (const user of [
      { targetingKey: "u-pro", plan: "pro", country: "FR" },
      { targetingKey: "u-free", plan: "free", country: "DE" },
    ]) {
      const { targetingKey, ...rest } = user;
      const lift = await remoteEval(a, { id: targetingKey, ...rest });
      const dark = await of.getBooleanDetails("dark-mode", !lift["dark-mode"], user);
      expect(dark.value).toBe(lift["dark-mode"]);
      expect(dark.errorCode).toBeUndefined();
      expect(await of.getStringValue("headline", "?", user)).toBe(lift.headline);
      expect(await of.getNumberValue("max-items", -1, user)).toBe(lift["max-items"]);
      expect(await of.getObjectValue("theme", {}, user)).toEqual(lift.theme);
    }
    const pro = { targetingKey: "u-pro", plan: "pro" };
    expect(await of.getBooleanDetails("dark-mode", false, pro)).toMatchObject({
      value: true,
      reason: "TARGETING_MATCH",
    });
    expect(await of.getBooleanDetails("dark-mode", true, { targetingKey: "u-free" })).toMatchObject({
      value: false,
      reason: "DEFAULT",
    });
    expect(await of.getStringDetails("headline", "?", pro)).toMatchObject({
      value: "Hello",
      reason: "STATIC",
    });
  });

  it("a rollout and an experiment over 100 targeting keys equal Lift's remote evaluation", async () => {
    const a = await t.tenant();
    const experimentId = await runningExperiment(a);
    await a.post("/api/flags", {
      key: "new-checkout",
      valueType: "boolean",
      defaultValue: false,
      rules: [{ type: "rollout", value: true, coverage: 0.4 }],
    });
    await a.post("/api/flags", {
      key: "cta",
      valueType: "string",
      defaultValue: "Buy",
      rules: [{ type: "experiment", experimentId, variations: ["Buy", "Buy now"] }],
    });
    const of = await client(bearer(a.publicKey));
    let on = 0;
    const variants = new Set<string>();
    for (let i = 0; i < 100; i++) {
      const ctx: EvaluationContext = { targetingKey: `user-${i}` };
      const lift = await remoteEval(a, { id: `user-${i}` });
      const rollout = await of.getBooleanValue("new-checkout", !lift["new-checkout"], ctx);
      expect(rollout, `user-${i}`).toBe(lift["new-checkout"]);
      if (rollout) on++;
      const cta = await of.getStringDetails("cta", "?", ctx);
      expect(cta.value, `user-${i}`).toBe(lift.cta);
      expect(cta.reason).toBe("SPLIT");
      // The variant is the experiment's variant name, with the experiment in the metadata.
      expect(cta.value).toBe(cta.variant === "b" ? "Buy now" : "Buy");
      expect(cta.flagMetadata).toMatchObject({ experimentId });
      variants.add(cta.variant!);
    }
    // Both outcomes occur: the comparison above is not of one constant.
    expect(on).toBeGreaterThan(20);
    expect(on).toBeLessThan(60);
    expect([...variants].sort()).toEqual(["b", "control"]);
  });

  it("an unknown flag resolves to the caller's default with FLAG_NOT_FOUND (404 in OFREP's format)", async () => {
    const a = await t.tenant();
    const of = await client(bearer(a.publicKey));
    const details = await of.getBooleanDetails("no-such-flag", true, { targetingKey: "u" });
    expect(details).toMatchObject({ value: true, reason: "ERROR", errorCode: "FLAG_NOT_FOUND" });
    const res = await post("/ofrep/v1/evaluate/flags/no-such-flag", { context: {} }, bearer(a.publicKey));
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({
      key: "no-such-flag",
      errorCode: "FLAG_NOT_FOUND",
      errorDetails: "flag no-such-flag not found",
    });
    // A key no flag could have is not found either.
    const odd = await post(
      `/ofrep/v1/evaluate/flags/${"X".repeat(300)}`,
      { context: {} },
      bearer(a.publicKey),
    );
    expect(odd.status).toBe(404);
    expect((await odd.json()).errorCode).toBe("FLAG_NOT_FOUND");
  });

  it("without the project's public key as Bearer the provider gets 401 and resolves the default", async () => {
    const a = await t.tenant();
    await a.post("/api/flags", { key: "on", valueType: "boolean", defaultValue: true });
    const refused: Record<string, string>[] = [
      {},
      bearer("svc_pk_unknown"),
      bearer(a.apiKey),
      { "x-api-key": a.publicKey },
    ];
    for (const headers of refused) {
      const of = await client(headers);
      const details = await of.getBooleanDetails("on", false, { targetingKey: "u" });
      expect(details.value, JSON.stringify(headers)).toBe(false);
      expect(details.reason).toBe("ERROR");
      for (const path of ["/ofrep/v1/evaluate/flags/on", "/ofrep/v1/evaluate/flags"]) {
        const res = await post(path, { context: {} }, headers);
        expect(res.status, path).toBe(401);
        expect((await res.json()).errorCode).toBe("GENERAL");
      }
    }
    // A secret key is refused with the reason: the public key is the SDK key.
    const secret = await post("/ofrep/v1/evaluate/flags", { context: {} }, bearer(a.apiKey));
    expect((await secret.json()).errorDetails).toMatch(/public key/);
  });
});

describe("exposures", () => {
  it("the documented exposure hook's events are what the experiment's results count", async () => {
    const a = await t.tenant();
    const experimentId = await runningExperiment(a, { trafficSplit: 80 });
    await a.post("/api/flags", {
      key: "cta",
      valueType: "string",
      defaultValue: "A",
      rules: [{ type: "experiment", experimentId, variations: ["A", "B"] }],
    });
    const of = await client(bearer(a.publicKey));
    // The snippet adds its hook to OpenFeature; here, to this test's client only.
    new Function("LIFT_URL", "LIFT_API_KEY", "OpenFeature", snippetFromDocs("ofrep-exposures"))(
      base,
      a.apiKey,
      {
        addHooks: (hook: Parameters<typeof of.addHooks>[0]) => of.addHooks(hook),
      },
    );
    const assigned: Record<string, number> = { control: 0, b: 0 };
    for (let i = 0; i < 40; i++) {
      // Each user evaluates twice: the results count a visitor once whatever arrives.
      for (let twice = 0; twice < 2; twice++) {
        const d = await of.getStringDetails("cta", "?", { targetingKey: `visitor-${i}` });
        if (twice === 0 && d.reason === "SPLIT") assigned[d.variant!]!++;
      }
    }
    // 80% traffic: some users are outside the experiment and send nothing.
    expect(assigned.control! + assigned.b!).toBeGreaterThan(20);
    expect(assigned.control! + assigned.b!).toBeLessThan(40);
    const counted = (res: { body: { results: { variants: { name: string; exposures: number }[] } } }) =>
      res.body.results.variants.map((v) => [v.name, v.exposures]);
    const expected = [
      ["control", assigned.control],
      ["b", assigned.b],
    ];
    await until(
      async () =>
        JSON.stringify(counted(await a.get(`/api/experiments/${experimentId}`))) === JSON.stringify(expected),
      "the exposures counted",
    );
  });
});

describe("OFREP over HTTP", () => {
  it("bulk: every flag, an ETag, 304 for If-None-Match, and a new ETag after a change", async () => {
    const a = await t.tenant();
    await a.post("/api/flags", { key: "sale", valueType: "boolean", defaultValue: false });
    await a.post("/api/flags", { key: "banner", valueType: "string", defaultValue: "none" });
    const auth = bearer(a.publicKey);
    const first = await post("/ofrep/v1/evaluate/flags", { context: { targetingKey: "u1" } }, auth);
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toMatch(/^application\/json/);
    const etag = first.headers.get("etag");
    expect(etag).toMatch(/^"[\w-]+"$/);
    const body = await first.json();
    expect(body.flags).toEqual([
      { key: "banner", value: "none", reason: "STATIC", metadata: {} },
      { key: "sale", value: false, reason: "STATIC", metadata: {} },
    ]);
    const again = await post(
      "/ofrep/v1/evaluate/flags",
      { context: { targetingKey: "u1" } },
      { ...auth, "if-none-match": etag! },
    );
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    await a.patch("/api/flags/sale", { defaultValue: true });
    const changed = await post(
      "/ofrep/v1/evaluate/flags",
      { context: { targetingKey: "u1" } },
      { ...auth, "if-none-match": etag! },
    );
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
    expect((await changed.json()).flags.find((f: { key: string }) => f.key === "sale").value).toBe(true);
  });

  it("an invalid context is 400 INVALID_CONTEXT, naming the field; never a 500", async () => {
    const a = await t.tenant();
    await a.post("/api/flags", { key: "on", valueType: "boolean", defaultValue: true });
    const auth = bearer(a.publicKey);
    const wide = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`k${i}`, i]));
    for (const context of ["text", [1], wide, { targetingKey: 5 }]) {
      for (const path of ["/ofrep/v1/evaluate/flags/on", "/ofrep/v1/evaluate/flags"]) {
        const res = await post(path, { context }, auth);
        expect(res.status, `${path} ${JSON.stringify(context).slice(0, 40)}`).toBe(400);
        const err = await res.json();
        expect(err.errorCode).toBe("INVALID_CONTEXT");
        expect(err.errorDetails).toMatch(/^body\.context/);
        if (path.endsWith("/on")) expect(err.key).toBe("on");
      }
    }
    const broken = await fetch(`${base}/ofrep/v1/evaluate/flags/on`, {
      method: "POST",
      headers: { "content-type": "application/json", ...auth },
      body: "{not json",
    });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ key: "on", errorCode: "INVALID_CONTEXT" });
  });

  it("answers a browser's preflight and exposes the ETag", async () => {
    const a = await t.tenant();
    const pre = await fetch(`${base}/ofrep/v1/evaluate/flags`, {
      method: "OPTIONS",
      headers: {
        origin: "https://shop.example.com",
        "access-control-request-method": "POST",
        "access-control-request-headers": "authorization,content-type,if-none-match",
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe("*");
    expect(pre.headers.get("access-control-allow-headers")).toContain("if-none-match");
    const res = await post(
      "/ofrep/v1/evaluate/flags",
      { context: {} },
      { ...bearer(a.publicKey), origin: "https://shop.example.com" },
    );
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-expose-headers")).toMatch(/etag/i);
  });
});
