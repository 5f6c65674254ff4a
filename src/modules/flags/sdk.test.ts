import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import {
  clearCache,
  type Experiment,
  GrowthBook,
  GrowthBookClient,
  type Result,
  setPolyfills,
} from "@growthbook/growthbook";
import { GrowthbookProvider } from "@openfeature/growthbook-provider";
import { OpenFeature, ProviderEvents } from "@openfeature/server-sdk";
import { EventSource } from "eventsource";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type Tenant, type TestApp } from "../../../test/helpers/app.js";
import { committed, exposure, processEvents } from "../experiments/experiments.testing.js";
import { flagStreams } from "./service.js";
import { snippetFromDocs, until } from "./flags.testing.js";

/** The real GrowthBook SDK (and OpenFeature's GrowthBook provider) in Node, over HTTP. */
setPolyfills({ EventSource });
// GrowthBook's OpenFeature provider loads the SDK's CommonJS build, a module instance of its own
// (docs/flags.md says so): its streams need the polyfill there too.
createRequire(import.meta.url)("@growthbook/growthbook").setPolyfills({ EventSource });

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
// Closes every stream the SDK opened (its module keeps them across instances).
afterEach(async () => clearCache());
afterAll(async () => {
  await OpenFeature.close();
  await t.close();
});

const streams = () => flagStreams(t.app.deps).size;

async function runningExperiment(
  a: Tenant,
  variants = ["control", "b"],
  extra: Record<string, unknown> = {},
) {
  const e = await a.post("/api/experiments", {
    name: "Checkout copy",
    targetUrl: "/checkout",
    variants: variants.map((name) => ({ name })),
    ...extra,
  });
  await a.patch("/api/experiments", { id: e.body.id, status: "running" });
  return e.body.id as string;
}

describe("GrowthBook SDK, local evaluation", () => {
  it("gets for each user what POST /api/flags/:key/evaluate answers", async () => {
    const a = await t.tenant();
    const experimentId = await runningExperiment(a);
    await a.post("/api/flags", {
      key: "copy",
      valueType: "string",
      defaultValue: "Buy",
      rules: [
        { type: "force", condition: { email: { $in: ["vip@example.com"] } }, value: "VIP" },
        { type: "rollout", condition: { country: "FR" }, value: "Acheter", coverage: 0.5 },
        { type: "experiment", experimentId, variations: ["Buy", "Buy now"] },
      ],
    });
    const client = new GrowthBookClient({ apiHost: base, clientKey: a.publicKey });
    const init = await client.init({ timeout: 5000 });
    expect(init.success).toBe(true);
    const users = [
      { id: "u-vip", email: "vip@example.com" },
      ...Array.from({ length: 40 }, (_, i) => ({ id: `u${i}`, country: i % 2 ? "FR" : "US" })),
    ];
    const sources = new Set<string>();
    for (const attributes of users) {
      const server = (await a.post("/api/flags/copy/evaluate", { attributes })).body;
      const sdk = client.evalFeature("copy", { attributes });
      expect(sdk.value, JSON.stringify(attributes)).toBe(server.value);
      if (server.source === "experiment") expect(sdk.experimentResult?.key).toBe(server.variant);
      sources.add(server.source);
    }
    expect([...sources].sort()).toEqual(["experiment", "force", "rollout"]);
    client.destroy();
  });
});

describe("GrowthBook SDK, streaming", () => {
  it("a PATCH reaches a streaming SDK in under 1 s, the kill switch included", async () => {
    const a = await t.tenant();
    await a.post("/api/flags", { key: "banner", valueType: "string", defaultValue: "off" });
    const before = streams();
    const gb = new GrowthBook({ apiHost: base, clientKey: a.publicKey, attributes: { id: "u1" } });
    await gb.init({ streaming: true, timeout: 5000 });
    expect(gb.getFeatureValue("banner", "?")).toBe("off");
    await until(() => streams() > before, "the SDK's stream");

    const timed = async (change: () => Promise<unknown>, value: string) => {
      const started = performance.now();
      await change();
      await until(() => gb.getFeatureValue("banner", "?") === value, `banner = ${value}`, 5000, 2);
      return performance.now() - started;
    };
    const patched = await timed(
      () => a.patch("/api/flags/banner", { rules: [{ type: "force", value: "sale" }] }),
      "sale",
    );
    expect(patched).toBeLessThan(1000);
    const killed = await timed(() => a.patch("/api/flags/banner", { enabled: false }), "off");
    expect(killed).toBeLessThan(1000);
    gb.destroy();
  });

  it("an experiment's start, its completion with a winner, and shipping it all reach the stream", async () => {
    const a = await t.tenant();
    await a.post("/api/conversion-goals", { name: "Signup", eventType: "signup" });
    const e = await a.post("/api/experiments", {
      name: "Hero",
      targetUrl: "/",
      variants: [{ name: "control" }, { name: "b" }],
      minSamplePerVariant: 80,
    });
    const experimentId = e.body.id as string;
    const created = await a.post("/api/flags", {
      key: "hero",
      valueType: "string",
      defaultValue: "old",
      rules: [{ type: "experiment", experimentId, variations: ["old", "new"] }],
    });
    const ruleId = created.body.rules[0].id as string;
    const before = streams();
    const gb = new GrowthBook({ apiHost: base, clientKey: a.publicKey, attributes: { id: "u1" } });
    await gb.init({ streaming: true, timeout: 5000 });
    await until(() => streams() > before, "the SDK's stream");
    // A draft experiment's rule is skipped.
    expect(gb.evalFeature("hero").source).toBe("defaultValue");
    await a.patch("/api/experiments", { id: experimentId, status: "running" });
    await until(() => gb.evalFeature("hero").source === "experiment", "the running experiment");

    // Exposures and conversions complete it with b as the winner (the events pipeline's processor).
    const events = [];
    for (let i = 0; i < 80; i++) {
      events.push(committed(a, { visitorId: `c${i}`, ...exposure(experimentId, "control") }));
      if (i < 8) events.push(committed(a, { visitorId: `c${i}`, type: "signup" }));
      events.push(committed(a, { visitorId: `b${i}`, ...exposure(experimentId, "b") }));
      if (i < 48) events.push(committed(a, { visitorId: `b${i}`, type: "signup" }));
    }
    await processEvents(t.app, events);
    expect((await a.get(`/api/experiments/${experimentId}`)).body).toMatchObject({
      status: "completed",
      winner: "b",
    });
    // The winner's value, to everyone the rule matches.
    await until(() => gb.evalFeature("hero").source === "force", "the winner's value");
    expect(gb.getFeatureValue("hero", "?")).toBe("new");
    for (const id of ["u1", "u2", "u3"])
      expect((await a.post("/api/flags/hero/evaluate", { attributes: { id } })).body).toEqual({
        value: "new",
        source: "experiment",
        ruleId,
        variant: "b",
      });

    const shipped = await a.post(`/api/flags/hero/rules/${ruleId}/ship`, {});
    expect(shipped.status).toBe(200);
    expect(shipped.body.rules).toEqual([{ id: ruleId, type: "force", value: "new" }]);
    expect((await a.post("/api/flags/hero/evaluate", { attributes: { id: "u1" } })).body).toEqual({
      value: "new",
      source: "force",
      ruleId,
    });
    const history = (await a.get("/api/flags/hero/history")).body;
    expect(history[0]).toMatchObject({
      action: "shipped",
      after: { rules: [{ type: "force", value: "new" }] },
    });
    expect(gb.getFeatureValue("hero", "?")).toBe("new");
    gb.destroy();
  });
});

describe("GrowthBook SDK, remote evaluation", () => {
  it("gets values without rules and tracks the experiment it was put in", async () => {
    const a = await t.tenant();
    const experimentId = await runningExperiment(a);
    await a.post("/api/flags", {
      key: "price",
      valueType: "number",
      defaultValue: 10,
      rules: [
        { type: "force", condition: { plan: "pro" }, value: 0 },
        { type: "experiment", experimentId, variations: [10, 9] },
      ],
    });
    const tracked: [Experiment<unknown>, Result<unknown>][] = [];
    const gb = new GrowthBook({
      apiHost: base,
      clientKey: a.publicKey,
      remoteEval: true,
      attributes: { id: "remote-user" },
      trackingCallback: (e, r) => void tracked.push([e, r]),
    });
    await gb.init({ timeout: 5000 });
    const server = (await a.post("/api/flags/price/evaluate", { attributes: { id: "remote-user" } })).body;
    expect(gb.getFeatureValue("price", -1)).toBe(server.value);
    expect(server.source).toBe("experiment");
    // The payload it got holds the value only: no condition, no other variation's value.
    const got = JSON.stringify(gb.getPayload());
    expect(got).not.toContain("pro");
    expect(tracked).toHaveLength(1);
    expect(tracked[0]![0].key).toBe(experimentId);
    expect(tracked[0]![1].key).toBe(server.variant);

    // New attributes are evaluated by the server again.
    await gb.setAttributes({ id: "remote-user", plan: "pro" });
    await until(() => gb.getFeatureValue("price", -1) === 0, "the pro price");
    gb.destroy();
  });
});

describe("OpenFeature with GrowthBook's provider", () => {
  it("resolves values, reason and variant, and signals a change pushed by the stream", async () => {
    const a = await t.tenant();
    const experimentId = await runningExperiment(a, ["control", "b", "c"]);
    await a.post("/api/flags", {
      key: "layout",
      valueType: "string",
      defaultValue: "list",
      rules: [
        { type: "force", condition: { beta: true }, value: "beta" },
        { type: "experiment", experimentId, variations: ["list", "grid", "cards"] },
      ],
    });
    await a.post("/api/flags", { key: "max-items", valueType: "number", defaultValue: 20 });
    await a.post("/api/flags", { key: "theme", valueType: "json", defaultValue: { dark: false } });
    const before = streams();
    await OpenFeature.setProviderAndWait(
      new GrowthbookProvider({ apiHost: base, clientKey: a.publicKey }, { streaming: true, timeout: 5000 }),
    );
    const flags = OpenFeature.getClient();
    const user = { targetingKey: "of-user", id: "of-user" };
    const details = await flags.getStringDetails("layout", "?", user);
    const server = (await a.post("/api/flags/layout/evaluate", { attributes: user })).body;
    expect(details).toMatchObject({ value: server.value, reason: "experiment", variant: server.variant });
    expect(await flags.getStringValue("layout", "?", { ...user, beta: true })).toBe("beta");
    expect(await flags.getNumberValue("max-items", 0, user)).toBe(20);
    expect(await flags.getObjectValue("theme", {}, user)).toEqual({ dark: false });

    await until(() => streams() > before, "the provider's stream");
    let changed = 0;
    const onChange = () => void changed++;
    OpenFeature.addHandler(ProviderEvents.ConfigurationChanged, onChange);
    await a.patch("/api/flags/max-items", { defaultValue: 50 });
    await until(() => changed > 0, "ConfigurationChanged");
    expect(await flags.getNumberValue("max-items", 0, user)).toBe(50);
    OpenFeature.removeHandler(ProviderEvents.ConfigurationChanged, onChange);
    await OpenFeature.clearProviders();
  });
});

describe("exposures", () => {
  it("the documented Node tracking callback's exposures are what the experiment's results count", async () => {
    const a = await t.tenant();
    const experimentId = await runningExperiment(a, ["control", "b"], { trafficSplit: 80 });
    await a.post("/api/flags", {
      key: "cta",
      valueType: "string",
      defaultValue: "A",
      rules: [{ type: "experiment", experimentId, variations: ["A", "B"] }],
    });
    const code = snippetFromDocs("node-tracking");
    const trackingCallback = new Function("LIFT_URL", "LIFT_API_KEY", `${code}\nreturn trackingCallback;`)(
      base,
      a.apiKey,
    ) as (e: Experiment<unknown>, r: Result<unknown>) => Promise<Response>;
    const posts: Promise<Response>[] = [];
    const client = new GrowthBookClient({
      apiHost: base,
      clientKey: a.publicKey,
      trackingCallback: (e, r) => void posts.push(trackingCallback(e, r)),
    });
    await client.init({ timeout: 5000 });
    const assigned = { control: 0, b: 0 } as Record<string, number>;
    for (let i = 0; i < 60; i++) {
      // Each user evaluates twice (two requests): the SDK tracks them once per scoped instance,
      // and the results count a visitor once whatever arrives.
      for (let twice = 0; twice < 2; twice++) {
        const scoped = client.createScopedInstance({ attributes: { id: `visitor-${i}` } });
        const r = scoped.evalFeature("cta");
        if (twice === 0 && r.source === "experiment") assigned[r.experimentResult!.key]!++;
      }
    }
    const answers = await Promise.all(posts);
    expect(answers.every((r) => r.status === 200)).toBe(true);
    // 80% traffic: some users are outside the experiment and send nothing.
    expect(assigned.control! + assigned.b!).toBeGreaterThan(30);
    expect(assigned.control! + assigned.b!).toBeLessThan(60);
    const results = (await a.get(`/api/experiments/${experimentId}`)).body.results;
    expect(results.variants.map((v: { name: string; exposures: number }) => [v.name, v.exposures])).toEqual([
      ["control", assigned.control],
      ["b", assigned.b],
    ]);
    client.destroy();
  });
});
