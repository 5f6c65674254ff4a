import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";

/**
 * Leads brought from another tool keep their dates: `POST /api/identity`, the stitch, Segment's
 * identify and a batch's userId take the time the person became known, and a lead's created and
 * linked times are the earliest known. The daily leads count follows the creation day.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
});
afterAll(async () => t.close());

const DAY = 86_400_000;
const NOW = Date.now();
const daysAgo = (n: number) => Math.floor(NOW / DAY) * DAY - n * DAY + 10 * 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const day = (ms: number) => iso(ms).slice(0, 10);

const leadsOn = async (a: Tenant, from: number, to = from) => {
  const res = await a.get(`/api/analytics/summary?period=custom&from=${day(from)}&to=${day(to)}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.leads as number;
};
const profile = async (a: Tenant, id: string) => {
  const res = await a.get(`/api/leads/${id}`);
  expect(res.status).toBe(200);
  return res.body as { createdAt: string; visitors: { visitorId: string; linkedAt: string }[] };
};
const linkedAt = async (a: Tenant, leadId: string, visitorId: string) =>
  (await profile(a, leadId)).visitors.find((v) => v.visitorId === visitorId)?.linkedAt;

describe("POST /api/identity with a timestamp", () => {
  it("dates a new lead and its link at the timestamp, and counts the lead on that day", async () => {
    const a = await t.tenant();
    const res = await a.post("/api/identity", {
      visitorId: "v1",
      leadId: "crm_1",
      timestamp: iso(daysAgo(20)),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ linked: true, linkedAt: iso(daysAgo(20)) });
    expect((await profile(a, "crm_1")).createdAt).toBe(iso(daysAgo(20)));
    expect(await leadsOn(a, daysAgo(20))).toBe(1);
    expect(await leadsOn(a, daysAgo(6), NOW)).toBe(0);
    expect((await a.get("/api/analytics/summary?period=30d")).body.leads).toBe(1);
  });

  it("keeps the earliest time: a later timestamp changes nothing, an earlier one moves the lead and its count", async () => {
    const a = await t.tenant();
    await a.post("/api/identity", { visitorId: "v1", leadId: "crm_2", timestamp: iso(daysAgo(20)) });
    const later = await a.post("/api/identity", {
      visitorId: "v2",
      leadId: "crm_2",
      timestamp: iso(daysAgo(10)),
    });
    expect(later.body).toMatchObject({ linked: true, linkedAt: iso(daysAgo(10)) });
    const again = await a.post("/api/identity", {
      visitorId: "v1",
      leadId: "crm_2",
      timestamp: iso(daysAgo(5)),
    });
    expect(again.body).toMatchObject({ linked: false, linkedAt: iso(daysAgo(20)) });
    expect((await profile(a, "crm_2")).createdAt).toBe(iso(daysAgo(20)));
    expect(await leadsOn(a, daysAgo(20))).toBe(1);

    const earlier = await a.post("/api/identity", {
      visitorId: "v1",
      leadId: "crm_2",
      timestamp: iso(daysAgo(25)),
    });
    expect(earlier.body).toMatchObject({ linked: false, linkedAt: iso(daysAgo(25)) });
    expect((await profile(a, "crm_2")).createdAt).toBe(iso(daysAgo(25)));
    expect(await linkedAt(a, "crm_2", "v2")).toBe(iso(daysAgo(10)));
    expect(await leadsOn(a, daysAgo(20))).toBe(0);
    expect(await leadsOn(a, daysAgo(25))).toBe(1);
    expect((await a.get("/api/analytics/summary?period=30d")).body.leads).toBe(1);
  });

  it("without a timestamp, the lead is dated now as before", async () => {
    const a = await t.tenant();
    await a.post("/api/identity", { visitorId: "v1", leadId: "crm_3" });
    const created = Date.parse((await profile(a, "crm_3")).createdAt);
    expect(Math.abs(created - Date.now())).toBeLessThan(60_000);
    expect(await leadsOn(a, Date.now())).toBe(1);
  });

  it.each([
    ["1999-12-31T23:59:59Z", /body\.timestamp is out of range/],
    [iso(Date.now() + 3 * DAY), /body\.timestamp is out of range/],
    ["last tuesday", /body\.timestamp must be an ISO 8601 date-time/],
  ])("refuses %s with a 400 naming the field", async (timestamp, message) => {
    const a = await t.tenant();
    const res = await a.post("/api/identity", { visitorId: "v1", leadId: "crm_4", timestamp });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
    expect(res.body.error).toMatch(message);
    expect((await a.get("/api/leads/crm_4")).status).toBe(404);
  });
});

describe("the stitch with a timestamp", () => {
  it("a server's stitch dates the lead and moves an existing one earlier; a page's only dates what it creates", async () => {
    const a = await t.tenant();
    const server = await a.post(
      "/api/identity/stitch",
      { projectKey: a.apiKey, visitorId: "s1", email: "ada@example.com", timestamp: iso(daysAgo(15)) },
      { as: "none" },
    );
    expect(server.status, JSON.stringify(server.body)).toBe(200);
    const id = server.body.leadId as string;
    expect((await profile(a, id)).createdAt).toBe(iso(daysAgo(15)));
    expect(await leadsOn(a, daysAgo(15))).toBe(1);

    // the public key (in every page) cannot move an existing lead's dates
    const page = await a.post(
      "/api/identity/stitch",
      { projectKey: a.publicKey, visitorId: "s2", email: "ada@example.com", timestamp: iso(daysAgo(28)) },
      { as: "none" },
    );
    expect(page.status).toBe(200);
    expect((await profile(a, id)).createdAt).toBe(iso(daysAgo(15)));
    expect(await linkedAt(a, id, "s2")).toBe(iso(daysAgo(28)));

    const earlier = await a.post(
      "/api/identity/stitch",
      { projectKey: a.apiKey, visitorId: "s1", email: "ada@example.com", timestamp: iso(daysAgo(18)) },
      { as: "none" },
    );
    expect(earlier.status).toBe(200);
    expect((await profile(a, id)).createdAt).toBe(iso(daysAgo(18)));
    expect(await leadsOn(a, daysAgo(15))).toBe(0);
    expect(await leadsOn(a, daysAgo(18))).toBe(1);

    const bad = await a.post(
      "/api/identity/stitch",
      { projectKey: a.apiKey, visitorId: "s1", email: "ada@example.com", timestamp: "1990-01-01T00:00:00Z" },
      { as: "none" },
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/body\.timestamp is out of range/);
  });
});

describe("Segment's identify and a batch's userId", () => {
  const basic = (a: Tenant) => ({ authorization: `Basic ${Buffer.from(`${a.apiKey}:`).toString("base64")}` });

  it("identify dates the lead and its link at the message's timestamp", async () => {
    const a = await t.tenant();
    const res = await a.post(
      "/v1/identify",
      { userId: "u_1", anonymousId: "anon_1", traits: { plan: "pro" }, timestamp: iso(daysAgo(12)) },
      { as: "none", headers: basic(a) },
    );
    expect(res.status).toBe(200);
    expect((await profile(a, "u_1")).createdAt).toBe(iso(daysAgo(12)));
    expect(await linkedAt(a, "u_1", "anon_1")).toBe(iso(daysAgo(12)));
    expect(await leadsOn(a, daysAgo(12))).toBe(1);
    // a later identify of the same person keeps the earlier date
    await a.post(
      "/v1/identify",
      { userId: "u_1", anonymousId: "anon_1", timestamp: iso(daysAgo(2)) },
      { as: "none", headers: basic(a) },
    );
    expect((await profile(a, "u_1")).createdAt).toBe(iso(daysAgo(12)));
  });

  it("a batch's userId dates the lead at the batch's earliest event of that user", async () => {
    const a = await t.tenant();
    const res = await a.post(
      "/api/events",
      {
        projectKey: a.apiKey,
        userId: "u_2",
        events: [
          { type: "activated", url: "https://app.example/", timestamp: iso(daysAgo(9)) },
          { type: "signup", url: "https://app.example/", timestamp: iso(daysAgo(11)) },
        ],
      },
      { as: "none" },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await profile(a, "u_2")).createdAt).toBe(iso(daysAgo(11)));
    expect(await leadsOn(a, daysAgo(11))).toBe(1);
    // history sent later, older still, moves it earlier
    await a.post(
      "/api/events",
      {
        projectKey: a.apiKey,
        userId: "u_2",
        events: [{ type: "visit", url: "https://app.example/", timestamp: iso(daysAgo(14)) }],
      },
      { as: "none" },
    );
    expect((await profile(a, "u_2")).createdAt).toBe(iso(daysAgo(14)));
    expect(await leadsOn(a, daysAgo(11))).toBe(0);
    expect(await leadsOn(a, daysAgo(14))).toBe(1);
  });
});
