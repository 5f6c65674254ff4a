import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER_UA, type Tenant, type TestApp, startTestApp } from "../helpers/app.js";

/**
 * Issue 31, item 4: the public stitch endpoint takes the key every page carries, so its caller is
 * anyone. Before, its answer told whether an email was a known lead (and returned its leadId),
 * and its traits overwrote the lead's properties (plan went from enterprise to free).
 */
let t: TestApp;
let a: Tenant;
beforeAll(async () => {
  t = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
  a = await t.tenant();
});
afterAll(async () => t?.close());

const stitch = (body: Record<string, unknown>) =>
  a.post("/api/identity/stitch", body, { as: "none", headers: { "user-agent": BROWSER_UA } });

async function knownLead(email: string, properties: Record<string, unknown>) {
  const made = await a.post("/api/identity/stitch", {
    projectKey: a.apiKey,
    visitorId: `v-owner-${email}`,
    email,
    traits: properties,
  });
  expect(made.status).toBe(200);
  return made.body.leadId as string;
}
const propertiesOf = async (leadId: string) => (await a.get(`/api/leads/${leadId}`)).body.properties;

describe("public stitch", () => {
  it("answers a known and an unknown email alike: same status, same fields, no lead id", async () => {
    await knownLead("known@example.com", { plan: "enterprise" });
    const known = await stitch({
      projectKey: a.publicKey,
      visitorId: "v-probe-1",
      email: "Known@Example.com",
    });
    const unknown = await stitch({
      projectKey: a.publicKey,
      visitorId: "v-probe-2",
      email: "nobody@example.com",
    });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(200);
    expect(Object.keys(known.body).sort()).toEqual(Object.keys(unknown.body).sort());
    expect(known.body).toEqual({ visitorId: "v-probe-1", email: "known@example.com", accepted: true });
    expect(unknown.body).toEqual({ visitorId: "v-probe-2", email: "nobody@example.com", accepted: true });
    expect(JSON.stringify(known.body)).not.toMatch(/leadId|created|linked/);
  });

  it("does not reveal a known email through a visitor first identified by a userId", async () => {
    await knownLead("taken@example.com", { plan: "pro" });
    // The caller's own visitor, identified by an id of its choosing (batch userId, public key).
    for (const [visitorId, userId] of [
      ["v-oracle-1", "attacker-1"],
      ["v-oracle-2", "attacker-2"],
    ]) {
      const ev = await a.post(
        "/api/events",
        {
          projectKey: a.publicKey,
          userId,
          visitorId,
          events: [{ type: "signup", url: "https://shop.example/" }],
        },
        { as: "none" },
      );
      expect(ev.status).toBe(200);
    }
    const taken = await stitch({
      projectKey: a.publicKey,
      visitorId: "v-oracle-1",
      email: "taken@example.com",
    });
    const free = await stitch({
      projectKey: a.publicKey,
      visitorId: "v-oracle-2",
      email: "free@example.com",
    });
    expect([taken.status, free.status]).toEqual([200, 200]);
    expect(Object.keys(taken.body).sort()).toEqual(Object.keys(free.body).sort());
  });

  it("public traits only fill missing properties; a secret key's overwrite", async () => {
    const leadId = await knownLead("buyer@example.com", { plan: "enterprise" });
    const res = await stitch({
      projectKey: a.publicKey,
      visitorId: "v-buyer-page",
      email: "buyer@example.com",
      traits: { plan: "free", company: "Acme" },
    });
    expect(res.status).toBe(200);
    expect(await propertiesOf(leadId)).toMatchObject({ plan: "enterprise", company: "Acme" });
    const server = await a.post("/api/identity/stitch", {
      projectKey: a.apiKey,
      visitorId: "v-buyer-server",
      email: "buyer@example.com",
      traits: { plan: "growth" },
    });
    expect(server.status).toBe(200);
    expect(server.body).toMatchObject({ leadId, email: "buyer@example.com", created: false });
    expect(await propertiesOf(leadId)).toMatchObject({ plan: "growth", company: "Acme" });
  });

  it("events sent with the public key fill a lead's properties but never overwrite them; the secret key's do", async () => {
    const leadId = await knownLead("events@example.com", { plan: "enterprise" });
    const page = await a.post(
      "/api/events",
      {
        projectKey: a.publicKey,
        userId: leadId,
        events: [{ type: "x", url: "https://shop.example/", data: { $set: { plan: "free", seats: 3 } } }],
      },
      { as: "none" },
    );
    expect(page.status).toBe(200);
    expect(await propertiesOf(leadId)).toMatchObject({ plan: "enterprise", seats: 3 });
    const server = await a.post(
      "/api/events",
      {
        projectKey: a.apiKey,
        userId: leadId,
        events: [{ type: "x", url: "https://shop.example/", data: { $set: { plan: "scale" } } }],
      },
      { as: "none" },
    );
    expect(server.status).toBe(200);
    expect(await propertiesOf(leadId)).toMatchObject({ plan: "scale", seats: 3 });
  });
});
