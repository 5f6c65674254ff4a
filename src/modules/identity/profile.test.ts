import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER_UA, type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const HOUR = 3_600_000;
const at = (h: number) => new Date(Date.now() - 10 * HOUR + h * 60_000).toISOString();
/** Events as a page sends them (the public key), or with `server` a server (the secret key), whose `$set` may overwrite. */
const track = async (a: Tenant, body: Record<string, unknown>, server = false) => {
  const res = await a.post(
    "/api/events",
    { projectKey: server ? a.apiKey : a.publicKey, ...body },
    { as: "none", headers: { "user-agent": BROWSER_UA } },
  );
  expect(res.status).toBe(200);
  return res;
};
type Profile = {
  id: string;
  email: string | null;
  properties: Record<string, unknown>;
  visitors: { visitorId: string; source: string | null }[];
  attribution: { channel: string | null };
  conversions: number;
  revenue: number;
};

describe("lead profiles", () => {
  it("traits on link and stitch overwrite; a server's $set overwrites and $set_once fills only missing keys, in event time order", async () => {
    const a = await t.tenant();
    await a.post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" });
    const link = await a.post("/api/identity", {
      visitorId: "laptop",
      leadId: "user_1",
      traits: { plan: "free", seats: 1 },
    });
    expect(link.status).toBe(200);
    await track(
      a,
      {
        type: "pageview",
        visitorId: "laptop",
        url: "https://shop.example.com/?utm_source=newsletter&utm_medium=email",
        timestamp: at(0),
      },
      true,
    );
    await track(
      a,
      {
        type: "trial",
        visitorId: "laptop",
        url: "https://shop.example.com/trial",
        data: { $set: { plan: "trial" }, $set_once: { firstPlanSeen: "trial" } },
        timestamp: at(5),
      },
      true,
    );
    // One request, its events listed out of time order: they apply in event time order.
    await track(
      a,
      {
        visitorId: "laptop",
        events: [
          {
            type: "upgrade",
            url: "https://shop.example.com/billing",
            data: { $set: { plan: "pro" }, $set_once: { firstPlanSeen: "pro", signupDay: "monday" } },
            timestamp: at(30),
          },
          {
            type: "downgrade",
            url: "https://shop.example.com/billing",
            data: { $set: { plan: "basic" } },
            timestamp: at(20),
          },
          {
            type: "purchase",
            url: "https://shop.example.com/thanks",
            data: { revenue: 49, $set: { paid: true } },
            timestamp: at(31),
          },
        ],
      },
      true,
    );
    // An anonymous visitor's $set stays with it: no lead gets it until the visitor is linked.
    await track(
      a,
      {
        type: "pageview",
        visitorId: "stranger",
        url: "https://shop.example.com/",
        data: { $set: { plan: "enterprise" } },
        timestamp: at(5),
      },
      true,
    );
    const stitch = await a.post(
      "/api/identity/stitch",
      {
        projectKey: a.apiKey,
        visitorId: "phone",
        email: "Ada@Example.com",
        traits: { name: "Ada", seats: 3 },
      },
      { as: "none" },
    );
    expect(stitch.status).toBe(200);
    const stitched = stitch.body as { leadId: string };

    const res = await a.get<Profile>("/api/leads/user_1");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: "user_1",
      email: null,
      attribution: { channel: "email" },
      visitors: [{ visitorId: "laptop", source: "api" }],
      conversions: 1,
      revenue: 49,
    });
    // Later requests overwrite $set; $set_once keeps the first value; inside a request, time order.
    expect(res.body.properties).toEqual({
      plan: "pro",
      seats: 1,
      firstPlanSeen: "trial",
      signupDay: "monday",
      paid: true,
    });
    const ada = await a.get<Profile>(`/api/leads/${stitched.leadId}`);
    expect(ada.body).toMatchObject({
      email: "ada@example.com",
      properties: { name: "Ada", seats: 3 },
      visitors: [{ visitorId: "phone", source: "stitch" }],
    });
  });

  it("an anonymous visitor's $set is kept and merged on identify; the lead's own values win", async () => {
    const a = await t.tenant();
    expect(
      (await a.post("/api/identity", { visitorId: "desk", leadId: "u1", traits: { plan: "pro" } })).status,
    ).toBe(200);
    await track(a, {
      type: "pageview",
      visitorId: "anon",
      url: "https://shop.example.com/",
      data: { $set: { plan: "free", company: "Acme" }, $set_once: { firstPage: "/" } },
      timestamp: at(1),
    });
    await track(a, {
      type: "pageview",
      visitorId: "anon",
      url: "https://shop.example.com/p",
      data: { $set: { company: "Acme Inc" }, $set_once: { firstPage: "/p" } },
      timestamp: at(2),
    });
    expect((await a.get<Profile>("/api/leads/u1")).body.properties).toEqual({ plan: "pro" });
    expect((await a.post("/api/identity", { visitorId: "anon", leadId: "u1" })).status).toBe(200);
    expect((await a.get<Profile>("/api/leads/u1")).body.properties).toEqual({
      plan: "pro",
      company: "Acme Inc",
      firstPage: "/",
    });
    const row = await t.app.db
      .selectFrom("identity_visitors")
      .select("properties")
      .where("project_id", "=", a.projectId)
      .where("visitor_id", "=", "anon")
      .executeTakeFirstOrThrow();
    expect(row.properties).toBeNull();

    // A stitch merges too; its traits are applied after, so they overwrite.
    await track(a, {
      type: "pageview",
      visitorId: "tablet",
      url: "https://shop.example.com/",
      data: { $set: { role: "cto", size: "s" } },
      timestamp: at(3),
    });
    const stitch = await a.post(
      "/api/identity/stitch",
      { projectKey: a.apiKey, visitorId: "tablet", email: "lin@example.com", traits: { size: "m" } },
      { as: "none" },
    );
    expect(stitch.status).toBe(200);
    expect((await a.get<Profile>(`/api/leads/${stitch.body.leadId}`)).body.properties).toEqual({
      role: "cto",
      size: "m",
    });
  });

  it("GET /api/leads filters by properties as text, all filters together", async () => {
    const a = await t.tenant();
    const lead = (leadId: string, traits: Record<string, unknown>) =>
      a.post("/api/identity", { visitorId: `v_${leadId}`, leadId, traits });
    await lead("l1", { plan: "pro", seats: 5, beta: true, company: { size: 10 } });
    await lead("l2", { plan: "pro", seats: 2, beta: false });
    await lead("l3", { plan: "free" });
    const ids = async (query: string) =>
      (await a.get<{ items: { id: string }[] }>(`/api/leads?${query}`)).body.items.map((l) => l.id).sort();
    expect(await ids("where[plan]=pro")).toEqual(["l1", "l2"]);
    expect(await ids("where[plan]=pro&where[seats]=5")).toEqual(["l1"]);
    expect(await ids("where[beta]=true")).toEqual(["l1"]);
    expect(await ids("where[beta]=false")).toEqual(["l2"]);
    expect(await ids("where[plan]=enterprise")).toEqual([]);
    expect(await ids(`where[plan]=${encodeURIComponent("pro' or 1=1 --")}`)).toEqual([]);
    expect(await ids("where[missing]=x")).toEqual([]);
    const bad = await a.get<{ code: string; error: string }>(
      `/api/leads?${encodeURIComponent('where[a"b]')}=1`,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("VALIDATION_ERROR");
    const many = Array.from({ length: 11 }, (_, i) => `where[k${i}]=1`).join("&");
    expect((await a.get(`/api/leads?${many}`)).status).toBe(400);
  });

  it("refuses traits that are too large or too many, and another project's lead is 404", async () => {
    const a = await t.tenant();
    const tooMany = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i]));
    const many = await a.post<{ code: string }>("/api/identity", {
      visitorId: "v",
      leadId: "x",
      traits: tooMany,
    });
    expect(many.status).toBe(400);
    const big = await a.post<{ code: string; error: string }>("/api/identity", {
      visitorId: "v",
      leadId: "x",
      traits: { blob: "x".repeat(33 * 1024) },
    });
    expect(big.status).toBe(400);
    expect(big.body.error).toMatch(/32 KiB/);
    // Refused as a whole: the link was not made either.
    expect((await a.get("/api/leads/x")).status).toBe(404);
    await a.post("/api/identity", { visitorId: "v", leadId: "mine" });
    const b = await t.tenant();
    expect((await b.get("/api/leads/mine")).status).toBe(404);
    expect((await a.get("/api/leads/mine")).status).toBe(200);
  });
});
