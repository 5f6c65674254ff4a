import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { DAY, track } from "../analytics/analytics.testing.js";
import { getLead, upsertLeadByEmail } from "./service.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const project = (a: Tenant) => ({ id: a.projectId, workspaceId: a.workspaceId });

async function serviceEvents(a: Tenant, type: string) {
  const rows = await t.app.db
    .selectFrom("service_events")
    .selectAll()
    .where("project_id", "=", a.projectId)
    .where("type", "=", type)
    .execute();
  return rows.map((r) => JSON.parse(r.data) as Record<string, any>);
}

// The server's stitch (a secret key as projectKey): the full result. What a page's public key gets back is
// test/security/stitch.test.ts's subject.
const stitch = (a: Tenant, body: Record<string, unknown>) =>
  a.post("/api/identity/stitch", { projectKey: a.apiKey, ...body }, { as: "none" });

describe("POST /api/identity/stitch", () => {
  it("creates the lead once, case-insensitively, and a repeat stitch is idempotent", async () => {
    const a = await t.tenant();
    const first = await stitch(a, { visitorId: "v1", email: "  Ada@Example.COM " });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      visitorId: "v1",
      email: "ada@example.com",
      created: true,
      linked: true,
    });
    const again = await stitch(a, { visitorId: "v1", email: "ada@example.com" });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ leadId: first.body.leadId, created: false, linked: false });
    const other = await stitch(a, { visitorId: "v2", email: "ADA@example.com" });
    expect(other.body).toMatchObject({ leadId: first.body.leadId, created: false, linked: true });
    const created = await serviceEvents(a, "lead.created");
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ id: first.body.leadId, email: "ada@example.com", source: "stitch" });
  });

  it("merges the visitors' histories into the lead's journey and keeps the first touch", async () => {
    const a = await t.tenant();
    const t0 = Date.now() - 10 * DAY;
    const at = (ms: number) => new Date(ms).toISOString();
    await track(a, {
      type: "pageview",
      visitorId: "laptop",
      url: "https://shop.example.com/blog",
      referrer: "https://www.google.com/",
      timestamp: at(t0),
    });
    await track(a, {
      type: "pageview",
      visitorId: "laptop",
      url: "https://shop.example.com/",
      timestamp: at(t0 + DAY),
    });
    await track(a, {
      type: "pageview",
      visitorId: "phone",
      url: "https://shop.example.com/?utm_source=newsletter&utm_medium=email",
      timestamp: at(t0 + 5 * DAY),
    });
    const phone = await stitch(a, { visitorId: "phone", email: "grace@example.com" });
    expect(phone.body.created).toBe(true);
    let lead = await getLead(t.app.db, project(a), phone.body.leadId);
    expect(lead.attribution).toEqual({
      channel: "email",
      source: "newsletter",
      landingPage: "https://shop.example.com/",
    });

    const laptop = await stitch(a, { visitorId: "laptop", email: "Grace@example.com" });
    expect(laptop.body).toMatchObject({ leadId: phone.body.leadId, created: false, linked: true });
    lead = await getLead(t.app.db, project(a), phone.body.leadId);
    // The laptop's earlier organic visit is the lead's first touch now.
    expect(lead.attribution).toMatchObject({
      channel: "organic_search",
      landingPage: "https://shop.example.com/blog",
    });
    const updated = await serviceEvents(a, "lead.updated");
    expect(updated).toHaveLength(1);
    expect(updated[0]).toMatchObject({ id: lead.id, changed: ["attribution"] });

    const journey = await a.get("/api/identity", { query: { visitorId: "phone" } });
    expect(journey.status).toBe(200);
    expect(journey.body).toMatchObject({
      visitorId: "phone",
      leadId: lead.id,
      firstSeen: new Date(t0).toISOString(),
      lastSeen: new Date(t0 + 5 * DAY).toISOString(),
      attribution: { channel: "organic_search" },
    });
    expect([...journey.body.visitorIds].sort()).toEqual(["laptop", "phone"]);
    expect(journey.body.events.map((e: { url: string }) => e.url)).toEqual([
      "https://shop.example.com/blog",
      "https://shop.example.com/",
      "https://shop.example.com/?utm_source=newsletter&utm_medium=email",
    ]);
  });

  it("refuses to relink an identified visitor to another lead (409) and creates no lead", async () => {
    const a = await t.tenant();
    await stitch(a, { visitorId: "v1", email: "one@example.com" });
    const res = await stitch(a, { visitorId: "v1", email: "two@example.com" });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: "CONFLICT", status: 409 });
    expect(await serviceEvents(a, "lead.created")).toHaveLength(1);
    const two = await t.app.db
      .selectFrom("identity_leads")
      .select("id")
      .where("project_id", "=", a.projectId)
      .where("email", "=", "two@example.com")
      .execute();
    expect(two).toHaveLength(0);
  });

  it("401 on an unknown project key, 400 on a bad email, accepts text/plain with open CORS", async () => {
    const a = await t.tenant();
    const bad = await stitch(a, { projectKey: "svc_pk_nope", visitorId: "v1", email: "x@example.com" });
    expect(bad.status).toBe(401);
    expect(bad.body.code).toBe("UNAUTHORIZED");
    const email = await stitch(a, { visitorId: "v1", email: "not an email" });
    expect(email.status).toBe(400);
    expect(email.body.error).toMatch(/email/);
    const missing = await stitch(a, { email: "x@example.com" });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/visitorId/);
    const beacon = await a.post(
      "/api/identity/stitch",
      JSON.stringify({ projectKey: a.publicKey, visitorId: "v9", email: "beacon@example.com" }),
      { as: "none", headers: { "content-type": "text/plain", origin: "https://shop.example.com" } },
    );
    expect(beacon.status).toBe(200);
    expect(beacon.headers["access-control-allow-origin"]).toBe("*");
  });
});

describe("POST /api/identity", () => {
  it("links a visitor to a lead with its source; 409 other lead; repeat is a no-op", async () => {
    const a = await t.tenant();
    const { lead } = await upsertLeadByEmail(t.app.deps, project(a), {
      email: "crm@example.com",
      source: "crm",
    });
    const { lead: other } = await upsertLeadByEmail(t.app.deps, project(a), {
      email: "x@example.com",
      source: "crm",
    });
    const res = await a.post("/api/identity", { visitorId: "v1", leadId: lead.id, source: "checkout form" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      visitorId: "v1",
      leadId: lead.id,
      source: "checkout form",
      linked: true,
    });
    const again = await a.post("/api/identity", { visitorId: "v1", leadId: lead.id, source: "other" });
    expect(again.body).toMatchObject({ linked: false, source: "checkout form" });
    const conflict = await a.post("/api/identity", { visitorId: "v1", leadId: other.id });
    expect(conflict.status).toBe(409);
    const journey = await a.get("/api/identity", { query: { visitorId: "v1" } });
    expect(journey.body.leadId).toBe(lead.id);
  });

  it("creates a lead Lift has never seen under the caller's id, once (PostHog identify, Segment userId)", async () => {
    const a = await t.tenant();
    await track(a, {
      type: "pageview",
      visitorId: "v1",
      url: "https://shop.example.com/?utm_source=newsletter&utm_medium=email",
    });
    const res = await a.post("/api/identity", { visitorId: "v1", leadId: "user_42", source: "signup form" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      visitorId: "v1",
      leadId: "user_42",
      source: "signup form",
      linked: true,
    });
    const again = await a.post("/api/identity", { visitorId: "v2", leadId: "user_42" });
    expect(again.body).toMatchObject({ leadId: "user_42", linked: true });
    const created = await serviceEvents(a, "lead.created");
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ id: "user_42", email: null, source: "signup form" });
    const lead = await getLead(t.app.db, project(a), "user_42");
    expect(lead).toMatchObject({ id: "user_42", email: null, attribution: { channel: "email" } });
    const journey = await a.get("/api/identity", { query: { visitorId: "v2" } });
    expect(journey.body).toMatchObject({ leadId: "user_42", visitorIds: ["v1", "v2"] });
    expect((await a.get("/api/analytics/summary")).body).toMatchObject({ leads: 1 });
    // lead ids as long as a batch userId (200 characters)
    expect((await a.post("/api/identity", { visitorId: "v3", leadId: "u".repeat(200) })).status).toBe(200);
    expect((await a.post("/api/identity", { visitorId: "v4", leadId: "u".repeat(201) })).status).toBe(400);
  });

  it("a stitch gives a lead known only by id its email; refused (409) when another lead has that email", async () => {
    const a = await t.tenant();
    expect((await a.post("/api/identity", { visitorId: "v1", leadId: "user_1" })).status).toBe(200);
    const s1 = await stitch(a, { visitorId: "v1", email: "One@Example.com" });
    expect(s1.status).toBe(200);
    expect(s1.body).toMatchObject({ leadId: "user_1", email: "one@example.com", created: false });
    expect((await getLead(t.app.db, project(a), "user_1")).email).toBe("one@example.com");
    expect((await serviceEvents(a, "lead.updated")).map((e) => e.changed)).toEqual([["email"]]);
    // another browser of the same person finds the lead by its email now
    const s2 = await stitch(a, { visitorId: "v2", email: "one@example.com" });
    expect(s2.body).toMatchObject({ leadId: "user_1", created: false, linked: true });
    await upsertLeadByEmail(t.app.deps, project(a), { email: "two@example.com", source: "crm" });
    expect((await a.post("/api/identity", { visitorId: "v3", leadId: "user_3" })).status).toBe(200);
    const clash = await stitch(a, { visitorId: "v3", email: "two@example.com" });
    expect(clash.status).toBe(409);
    expect((await getLead(t.app.db, project(a), "user_3")).email).toBeNull();
  });

  it("the same lead id in two projects is two leads; another project's visitor is 404; no credentials 401", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    const { lead } = await upsertLeadByEmail(t.app.deps, project(b), {
      email: "b@example.com",
      source: "crm",
    });
    await track(b, { type: "pageview", visitorId: "vb", url: "https://b.example/" });
    expect((await a.post("/api/identity", { visitorId: "va", leadId: lead.id })).status).toBe(200);
    expect((await getLead(t.app.db, project(a), lead.id)).email).toBeNull();
    expect((await getLead(t.app.db, project(b), lead.id)).email).toBe("b@example.com");
    expect((await a.get("/api/identity", { query: { visitorId: "vb" } })).status).toBe(404);
    expect((await b.get("/api/identity", { query: { visitorId: "vb" } })).status).toBe(200);
    expect((await a.get("/api/identity", { as: "none", query: { visitorId: "vb" } })).status).toBe(401);
    expect((await a.post("/api/identity", { visitorId: "va", leadId: lead.id }, { as: "none" })).status).toBe(
      401,
    );
    expect((await a.get("/api/identity")).status).toBe(400);
  });
});

describe("leads and batch userId", () => {
  it("upsertLeadByEmail: one lead per trimmed lower-cased email; lead.updated on a data change only", async () => {
    const a = await t.tenant();
    const p = project(a);
    const one = await upsertLeadByEmail(t.app.deps, p, {
      email: " Bo@Example.com",
      source: "crm",
      name: "Bo",
    });
    const two = await upsertLeadByEmail(t.app.deps, p, {
      email: "bo@example.com",
      source: "payments",
      name: "Bo",
    });
    const three = await upsertLeadByEmail(t.app.deps, p, {
      email: "BO@example.com",
      source: "crm",
      properties: { plan: "pro" },
    });
    expect(one.created).toBe(true);
    expect(two).toMatchObject({ created: false, lead: { id: one.lead.id, source: "crm" } });
    expect(three.lead.properties).toEqual({ plan: "pro" });
    expect(await serviceEvents(a, "lead.created")).toHaveLength(1);
    const updated = await serviceEvents(a, "lead.updated");
    expect(updated).toHaveLength(1);
    expect(updated[0]!.changed).toEqual(["properties"]);
    await expect(getLead(t.app.db, p, "lead_nope")).rejects.toMatchObject({ code: "NOT_FOUND" });
    const b = await t.tenant();
    await expect(getLead(t.app.db, project(b), one.lead.id)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("a batch userId links the visitor, creating an unknown lead once, and never relinks", async () => {
    const a = await t.tenant();
    const { lead } = await upsertLeadByEmail(t.app.deps, project(a), {
      email: "u@example.com",
      source: "crm",
    });
    const { lead: other } = await upsertLeadByEmail(t.app.deps, project(a), {
      email: "o@example.com",
      source: "crm",
    });
    const paid = "https://shop.example.com/?gclid=abc123";
    // The web visits come from the snippet; the batches are a server's.
    for (const visitorId of ["v1", "v2"]) await track(a, { type: "pageview", visitorId, url: paid });
    await track(a, { userId: lead.id, visitorId: "v1", events: [{ type: "login", url: paid }] });
    await track(a, { userId: "lead_unknown", visitorId: "v2", events: [{ type: "login", url: paid }] });
    await track(a, { userId: "lead_unknown", visitorId: "v2", events: [{ type: "login", url: paid }] });
    await track(a, { userId: other.id, visitorId: "v1", events: [{ type: "click", url: paid }] });
    const v1 = await a.get("/api/identity", { query: { visitorId: "v1" } });
    expect(v1.body.leadId).toBe(lead.id);
    expect(v1.body.attribution.channel).toBe("paid_search");
    const v2 = await a.get("/api/identity", { query: { visitorId: "v2" } });
    expect(v2.body).toMatchObject({ leadId: "lead_unknown", attribution: { channel: "paid_search" } });
    expect((await getLead(t.app.db, project(a), lead.id)).attribution.channel).toBe("paid_search");
    expect((await getLead(t.app.db, project(a), "lead_unknown")).source).toBe("userId");
    expect(await serviceEvents(a, "lead.created")).toHaveLength(3);
  });

  it("a visitor stitched before its first event takes that event's first touch", async () => {
    const a = await t.tenant();
    const s = await stitch(a, { visitorId: "early", email: "early@example.com" });
    const ts = Date.now() - 1000;
    await track(a, {
      type: "pageview",
      visitorId: "early",
      url: "https://shop.example.com/",
      referrer: "https://news.example.org/story",
      timestamp: new Date(ts).toISOString(),
    });
    const journey = await a.get("/api/identity", { query: { visitorId: "early" } });
    expect(journey.body).toMatchObject({
      leadId: s.body.leadId,
      firstSeen: new Date(ts).toISOString(),
      attribution: { channel: "referral" },
    });
    const lead = await getLead(t.app.db, project(a), s.body.leadId);
    expect(lead.attribution).toMatchObject({ channel: "referral", landingPage: "https://shop.example.com/" });
  });
});
