import type { AddressInfo } from "node:net";
import { PostHog } from "posthog-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type Tenant, type TestApp } from "../../../../test/helpers/app.js";

/**
 * A group without a person, as posthog-node's `groupIdentify` sends it, and a flag on that group's
 * property: the traits a server sets are the group's, and PostHog's `/flags` evaluates a flag on
 * `groupProperties.<type>.<trait>` for whoever names the group, as PostHog does.
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
  const flag = {
    key: "enterprise-beta",
    valueType: "boolean",
    defaultValue: false,
    rules: [
      { type: "force", condition: { "groupProperties.company.plan": { $eq: "enterprise" } }, value: true },
    ],
  };
  expect((await a.post("/api/flags", flag)).status).toBe(201);
});
afterAll(async () => {
  for (const c of clients) await c.shutdown();
  await t.close();
});

function sdk(key: string, opts: { personalApiKey?: string } = {}): PostHog {
  const client = new PostHog(key, {
    host: base,
    flushAt: 50,
    flushInterval: 0,
    fetchRetryCount: 0,
    featureFlagsPollingInterval: 60_000,
    ...opts,
  });
  clients.push(client);
  return client;
}

const quiet = { sendFeatureFlagEvents: false } as const;
const on = (client: PostHog, groups: Record<string, string>, more: object = {}) =>
  client.getFeatureFlag("enterprise-beta", "user-1", { groups, ...quiet, ...more });

describe("posthog-node's groupIdentify without a person, and a flag on a group property", () => {
  it("the group's traits are kept, merged, and target a flag for whoever names the group", async () => {
    const server = sdk(a.apiKey);
    server.groupIdentify({ groupType: "company", groupKey: "acme", properties: { plan: "enterprise" } });
    server.groupIdentify({ groupType: "company", groupKey: "globex", properties: { plan: "free" } });
    await server.flush();
    expect(await on(server, { company: "acme" })).toBe(true);
    expect(await on(server, { company: "globex" })).toBe(false);
    expect(await on(server, { company: "initech" })).toBe(false);
    expect(await on(server, {})).toBe(false);
    // Later traits merge into the group's: plan stays until a later call changes it.
    server.groupIdentify({ groupType: "company", groupKey: "acme", properties: { seats: 40 } });
    await server.flush();
    expect(await on(server, { company: "acme" })).toBe(true);
    server.groupIdentify({ groupType: "company", groupKey: "globex", properties: { plan: "enterprise" } });
    await server.flush();
    expect(await on(server, { company: "globex" })).toBe(true);
    // Properties sent with the call win over the stored ones, as in PostHog.
    expect(await on(server, { company: "acme" }, { groupProperties: { company: { plan: "free" } } })).toBe(
      false,
    );
    // Another group type with the same key is another group.
    expect(await on(server, { team: "acme" })).toBe(false);
  });

  it("posthog-node evaluating locally asks Lift for such a flag and gets the stored traits' answer", async () => {
    const server = sdk(a.apiKey);
    server.groupIdentify({ groupType: "company", groupKey: "hooli", properties: { plan: "enterprise" } });
    await server.flush();
    const local = sdk(a.publicKey, { personalApiKey: a.apiKey });
    expect(await local.waitForLocalEvaluationReady(5_000)).toBe(true);
    expect(await on(local, { company: "hooli" })).toBe(true);
    expect(await local.getAllFlags("user-1", { groups: { company: "hooli" } })).toEqual({
      "enterprise-beta": true,
    });
  });

  it("a public key's group traits never target: anyone can send that key", async () => {
    const page = sdk(a.publicKey);
    page.groupIdentify({ groupType: "company", groupKey: "umbrella", properties: { plan: "enterprise" } });
    await page.flush();
    // Stored as an event all the same.
    const events = (await a.get("/api/events/recent?limit=50")).body as { type: string; data: unknown }[];
    expect(
      events.filter((e) => e.type === "$groupidentify" && JSON.stringify(e.data).includes("umbrella")),
    ).toHaveLength(1);
    expect(await on(sdk(a.apiKey), { company: "umbrella" })).toBe(false);
  });
});
