import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BROWSER_UA, type Tenant, type TestApp, startTestApp } from "../helpers/app.js";

/**
 * Flag targeting that reveals nothing and cannot be written from a browser. Remote evaluation once
 * answered with this evaluation's saved groups, so asking with someone's lead id told whether they
 * were in the cohort; and the public key could fill an empty `plan` through Segment's identify,
 * joining `plan is enterprise` and turning a gated flag on.
 */
let t: TestApp;
let a: Tenant;
beforeAll(async () => {
  t = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
});
beforeEach(async () => {
  a = await t.tenant();
});
afterAll(async () => t?.close());

const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString("base64")}`;
/** Segment's identify with the public key (a page) or the secret key (a server). */
async function identify(key: "public" | "secret", body: Record<string, unknown>) {
  const res = await a.post("/v1/identify", body, {
    as: "none",
    headers: {
      authorization: basic(key === "public" ? a.publicKey : a.apiKey),
      "user-agent": BROWSER_UA,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}
async function cohort(name: string, extra: Record<string, unknown> = {}, property = "plan", op = "is") {
  const res = await a.post("/api/cohorts", {
    name,
    definition: { conditions: [{ type: "property", property, op, value: "enterprise" }] },
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; trustBrowserProperties: boolean };
}
async function gate(key: string, cohortId: string) {
  const res = await a.post("/api/flags", {
    key,
    valueType: "boolean",
    defaultValue: false,
    rules: [
      {
        type: "force",
        condition: { $or: [{ leadId: { $inGroup: cohortId } }, { id: { $inGroup: cohortId } }] },
        value: true,
      },
    ],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}
const remote = async (attributes: Record<string, unknown>) => {
  const res = await a.post(`/api/eval/${a.publicKey}`, { attributes }, { as: "none" });
  expect(res.status).toBe(200);
  return res;
};
/** The flag's value for the person, asked both ways: the evaluate endpoint and remote evaluation. */
async function valueFor(key: string, attributes: Record<string, unknown>) {
  const server = (await a.post(`/api/flags/${key}/evaluate`, { attributes })).body.value;
  const sdk = (await remote(attributes)).body.features[key].defaultValue;
  expect(sdk, `remote evaluation and the evaluate endpoint agree for ${JSON.stringify(attributes)}`).toBe(
    server,
  );
  return server as boolean;
}

describe("remote evaluation reveals no cohort membership", () => {
  it("answers a member and a stranger with the right values, no saved groups and no member id", async () => {
    await identify("secret", {
      userId: "alice@corp.com",
      anonymousId: "v-alice",
      traits: { plan: "enterprise" },
    });
    const c = await cohort("Enterprise customers");
    await gate("enterprise-banner", c.id);

    const member = await remote({ leadId: "alice@corp.com" });
    expect(member.body.features["enterprise-banner"].defaultValue).toBe(true);
    expect(member.body).not.toHaveProperty("savedGroups");
    expect(member.text).not.toContain("alice@corp.com");
    expect(member.text).not.toContain("savedGroups");

    const byVisitor = await remote({ id: "v-alice" });
    expect(byVisitor.body.features["enterprise-banner"].defaultValue).toBe(true);
    expect(byVisitor.text).not.toContain("v-alice");

    const stranger = await remote({ leadId: "bob@corp.com", id: "v-bob" });
    expect(stranger.body.features["enterprise-banner"].defaultValue).toBe(false);
    expect(stranger.body).not.toHaveProperty("savedGroups");
    // the two answers differ only in the flag's value
    expect(Object.keys(stranger.body).sort()).toEqual(Object.keys(member.body).sort());

    const payload = await a.get(`/api/features/${a.publicKey}`, { as: "none" });
    expect(payload.status).toBe(200);
    expect(payload.text).toContain(c.id);
    for (const id of ["alice@corp.com", "v-alice"]) expect(payload.text).not.toContain(id);
  });
});

describe("a browser cannot write itself into a flag's cohort", () => {
  it("a property the public key filled does not count for targeting; the same set by a server does", async () => {
    // A page fills its own empty plan through Segment's identify (the public key only fills).
    await identify("public", { userId: "mallory", anonymousId: "v-mallory", traits: { plan: "enterprise" } });
    await identify("secret", { userId: "trent", traits: { plan: "enterprise" } });
    expect((await a.get("/api/leads/mallory")).body.properties).toEqual({ plan: "enterprise" });

    const c = await cohort("Enterprise plan");
    await gate("gated", c.id);
    expect(await valueFor("gated", { leadId: "mallory" })).toBe(false);
    expect(await valueFor("gated", { id: "v-mallory" })).toBe(false);
    expect(await valueFor("gated", { leadId: "trent" })).toBe(true);
    expect(c.trustBrowserProperties).toBe(false);

    // Reports still count every property: the cohort's count and members hold both.
    const count = await a.get(`/api/cohorts/${c.id}/count`);
    expect(count.body.count, count.text).toBe(2);
    const members = (await a.get(`/api/cohorts/${c.id}/members`)).body.items.map(
      (m: { leadId: string }) => m.leadId,
    );
    expect(members.sort()).toEqual(["mallory", "trent"]);

    // A server setting the same value vouches for it: the browser's mark is cleared.
    await identify("secret", { userId: "mallory", traits: { plan: "enterprise" } });
    // (membership is kept a minute per definition version: a saved edit counts at once)
    expect((await a.patch(`/api/cohorts/${c.id}`, { name: "Enterprise plan (v2)" })).status).toBe(200);
    expect(await valueFor("gated", { leadId: "mallory" })).toBe(true);
  });

  it("a browser-filled property counts as missing for targeting, in a property that holds when missing too", async () => {
    await identify("public", { userId: "eve", traits: { plan: "enterprise" } });
    const notEnterprise = await cohort("Not enterprise", {}, "plan", "is_not");
    await gate("upsell", notEnterprise.id);
    expect(await valueFor("upsell", { leadId: "eve" })).toBe(true);
    expect((await a.get(`/api/cohorts/${notEnterprise.id}/members`)).body.items).not.toContainEqual({
      leadId: "eve",
      visitorId: null,
    });
  });

  it("an anonymous visitor's browser-set properties stay marked when a server links it to a lead", async () => {
    const ev = await a.post(
      "/api/events",
      {
        projectKey: a.publicKey,
        type: "pageview",
        visitorId: "v-anon",
        url: "https://shop.example/",
        data: { $set: { plan: "enterprise" } },
      },
      { as: "none", headers: { "user-agent": BROWSER_UA } },
    );
    expect(ev.status).toBe(200);
    const link = await a.post("/api/identity", { visitorId: "v-anon", leadId: "linked-later" });
    expect(link.status, JSON.stringify(link.body)).toBe(200);
    expect((await a.get("/api/leads/linked-later")).body.properties).toEqual({ plan: "enterprise" });
    const c = await cohort("Enterprise plan (after links)");
    await gate("gated-linked", c.id);
    expect(await valueFor("gated-linked", { leadId: "linked-later" })).toBe(false);
  });

  it("a cohort that opts in to browser properties counts them, and says so", async () => {
    await identify("public", { userId: "oscar", traits: { plan: "enterprise" } });
    const trusting = await cohort("Enterprise plan (browser too)", { trustBrowserProperties: true });
    expect(trusting.trustBrowserProperties).toBe(true);
    expect((await a.get(`/api/cohorts/${trusting.id}`)).body.trustBrowserProperties).toBe(true);
    await gate("gated-trusting", trusting.id);
    expect(await valueFor("gated-trusting", { leadId: "oscar" })).toBe(true);

    // and back: the option is editable
    const patched = await a.patch(`/api/cohorts/${trusting.id}`, { trustBrowserProperties: false });
    expect(patched.status).toBe(200);
    expect(patched.body.trustBrowserProperties).toBe(false);
    expect(await valueFor("gated-trusting", { leadId: "oscar" })).toBe(false);
  });
});
