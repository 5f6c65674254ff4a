import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { goalMetric } from "./metrics.js";
import { openCredentials } from "./store.js";
import { type TestApp, type Tenant, startTestApp } from "../../../test/helpers/app.js";
import { HUBSPOT_PRIVATE_TOKEN, startHubspotFake } from "../../../test/fakes/hubspot.js";
import { QBO_REALM, startQuickbooksFake } from "../../../test/fakes/quickbooks.js";
import type { FakePlatform } from "../../../test/fakes/server.js";
import { STRIPE_KEY, startStripeFake } from "../../../test/fakes/stripe.js";
import { connectOAuth, eventually, platformConfig } from "./connectors.testing.js";

let t: TestApp;
let stripe: FakePlatform;
let hubspot: FakePlatform;
let qbo: FakePlatform;
const qboClient = { id: "qbo-client", secret: "qbo-secret" };

beforeAll(async () => {
  stripe = await startStripeFake();
  hubspot = await startHubspotFake();
  qbo = await startQuickbooksFake(qboClient);
  t = await startTestApp(
    platformConfig([
      ["payments", stripe],
      ["crm", hubspot],
      ["accounting", qbo, qboClient],
    ]),
  );
});
afterAll(async () => {
  await t.close();
  for (const f of [stripe, hubspot, qbo]) await f.close();
});

async function sync(a: Tenant) {
  const started = await a.get("/api/sync/run");
  await t.app.worker.drain();
  return started.body as { syncId: string; connectors: string[] };
}
/** Hand-offs to events and identity are jobs: drain until they landed (a retried job included). */
const settled = <T>(read: () => Promise<T[]>, n: number) =>
  eventually(async () => {
    await t.app.worker.drain();
    const rows = await read();
    return rows.length >= n && rows;
  });
const revenueEvents = (projectId: string) =>
  t.app.db
    .selectFrom("events")
    .selectAll()
    .where("project_id", "=", projectId)
    .where("type", "=", "$revenue")
    .orderBy("ts")
    .execute();

describe("payments (Stripe restricted key)", () => {
  it("refuses a malformed key without calling the platform, and a refused key with Stripe's message", async () => {
    const a = await t.tenant();
    const calls = stripe.log.length;
    const bad = await a.post("/api/connectors", { type: "payments", credentials: { apiKey: "hello" } });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/credentials.apiKey must be a Stripe restricted/);
    expect(stripe.log.length).toBe(calls);
    const refused = await a.post("/api/connectors", {
      type: "payments",
      credentials: { apiKey: "rk_test_51WrongKeyZZZZcdef" },
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error: "payments refused the credentials: Invalid API Key provided: rk_test_****cdef",
      code: "VALIDATION_ERROR",
      status: 400,
      requestId: expect.any(String),
    });
    expect((await a.get("/api/connectors")).body).toEqual([]);
  });

  it("connects, syncs charges/refunds/invoices, sends $revenue once, computes MRR", async () => {
    const a = await t.tenant();
    const created = await a.post("/api/connectors", {
      type: "payments",
      credentials: { apiKey: STRIPE_KEY },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ type: "payments", status: "connected", accountName: "Acme" });
    expect(JSON.stringify(created.body)).not.toContain(STRIPE_KEY);
    await sync(a);
    // 7d: ch_1 49.00 + ch_2 120.00 − re_1 10.00 (ch_3 failed, ch_4 is 12 days old).
    expect((await a.get("/api/metrics/payments?period=7d")).body).toEqual({
      connectorType: "payments",
      conversions: 2,
      revenue: 159,
      mrr: 198, // 2 × 49.00 monthly + 1200.00 yearly / 12
      period: expect.any(Object),
    });
    expect((await a.get("/api/metrics/payments?period=30d")).body).toMatchObject({
      conversions: 3,
      revenue: 184,
    });
    const events = await settled(() => revenueEvents(a.projectId), 4);
    expect(events.map((e) => JSON.parse(e.data))).toEqual(
      expect.arrayContaining([
        { revenue: 49, currency: "USD", source: "payments", externalId: "ch_1" },
        { revenue: -10, currency: "USD", source: "payments", externalId: "re_1" },
        { revenue: 120, currency: "USD", source: "payments", externalId: "ch_2" },
        { revenue: 25, currency: "USD", source: "payments", externalId: "ch_4" },
      ]),
    );
    expect(events).toHaveLength(4);
    // Charges with an email (own or from the paid invoice) are credited to a lead.
    expect(events.filter((e) => e.lead_id !== null)).toHaveLength(3);
    expect(events.find((e) => JSON.parse(e.data).externalId === "re_1")!.visitor_id).toBe("payments:re_1");

    // Incremental: the second sync asks from the newest `created` seen and sends nothing twice.
    await sync(a);
    expect((await revenueEvents(a.projectId)).length).toBe(4);
    const lastCharges = stripe.calls(/^\/v1\/charges$/).at(-1)!;
    expect(Number(lastCharges.query.get("created[gte]"))).toBeGreaterThan(0);

    const range = { from: 0, to: Date.now() + 1000 };
    const project = { id: a.projectId, workspaceId: a.workspaceId };
    expect(await goalMetric(t.app.db, project, "mrr", range)).toBe(198);
    expect(await goalMetric(t.app.db, project, "payments_revenue", range)).toBe(184);
    expect(await goalMetric(t.app.db, project, "visitors", range)).toBeUndefined();
  });

  it("an mrr goal reads the synced MRR", async () => {
    const a = await t.tenant();
    await a.post("/api/connectors", { type: "payments", credentials: { apiKey: STRIPE_KEY } });
    const deadline = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);
    const goal = await a.post("/api/goals", { metric: "mrr", target: 1000, deadline });
    expect(goal.status).toBe(201);
    await sync(a);
    await t.app.worker.drain();
    const goals = await a.get("/api/goals");
    expect(goals.body.find((g: { id: string }) => g.id === goal.body.id).current).toBe(198);
  });
});

describe("crm (HubSpot private app token)", () => {
  it("contacts become leads, won deals become revenue, cursors advance", async () => {
    const a = await t.tenant();
    const created = await a.post("/api/connectors", {
      type: "crm",
      credentials: { accessToken: HUBSPOT_PRIVATE_TOKEN },
    });
    expect(created.status).toBe(201);
    expect(created.body.accountName).toBe("HubSpot portal 62515");
    await sync(a);
    const leads = await settled(
      () =>
        t.app.db
          .selectFrom("identity_leads")
          .select(["email", "name", "source"])
          .where("project_id", "=", a.projectId)
          .orderBy("email")
          .execute(),
      2,
    );
    expect(leads).toEqual([
      { email: "ada@example.com", name: "Ada Lovelace", source: "crm" },
      { email: "grace@example.com", name: "Grace Hopper", source: "crm" },
    ]);
    // Deals 901 (1000.50, 1 day ago) and 902 (250, 5 days ago) are closedwon; 903 is not.
    expect((await a.get("/api/metrics/crm?period=7d")).body).toEqual({
      connectorType: "crm",
      conversions: 2,
      revenue: 1250.5,
      period: expect.any(Object),
    });
    expect((await settled(() => revenueEvents(a.projectId), 2)).map((e) => e.visitor_id).sort()).toEqual([
      "crm:hubspot:deal:901",
      "crm:hubspot:deal:902",
    ]);
    await sync(a);
    const searches = hubspot.calls(/\/crm\/v3\/objects\/contacts\/search$/);
    const lastFilter = searches.at(-1)!.json.filterGroups[0].filters[0];
    expect(lastFilter).toMatchObject({ propertyName: "lastmodifieddate", operator: "GTE" });
    expect(Number(lastFilter.value)).toBeGreaterThan(Date.now() - 2 * 86_400_000);
    expect(await revenueEvents(a.projectId)).toHaveLength(2);
  });

  it("a refused private app token is 400 with HubSpot's message", async () => {
    const a = await t.tenant();
    const res = await a.post("/api/connectors", {
      type: "crm",
      credentials: { accessToken: "pat-na1-00000000-0000-0000-0000-000000000000" },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(
      "crm refused the credentials: Authentication credentials not found. This API supports OAuth 2.0 authentication.",
    );
  });
});

describe("accounting (QuickBooks, rotating refresh tokens)", () => {
  it("ProfitAndLoss by day; the newest refresh token is always persisted", async () => {
    const a = await t.tenant();
    await connectOAuth(a, "accounting", qbo, { realmId: QBO_REALM });
    const creds = async () =>
      openCredentials(
        t.app.deps,
        (
          await t.app.db
            .selectFrom("connectors")
            .select("credentials")
            .where("project_id", "=", a.projectId)
            .executeTakeFirstOrThrow()
        ).credentials,
      );
    const first = await creds();
    expect(first.extra).toEqual({ realmId: QBO_REALM });

    qbo.expireAccessTokens();
    await sync(a);
    const second = await creds();
    expect(second.refreshToken).not.toBe(first.refreshToken);
    expect(qbo.refreshTokens.has(first.refreshToken!)).toBe(false);
    expect(qbo.refreshTokens.has(second.refreshToken!)).toBe(true);

    // A second rotation works only if the newest token was kept.
    qbo.expireAccessTokens();
    await sync(a);
    expect((await a.get("/api/connectors")).body[0].status).toBe("connected");
    expect((await creds()).refreshToken).not.toBe(second.refreshToken);

    expect((await a.get("/api/metrics/accounting?period=7d")).body).toEqual({
      connectorType: "accounting",
      revenue: 1800.25,
      expenses: 520.5,
      netIncome: 1279.75,
      period: expect.any(Object),
    });
  });
});

describe("overview with revenue sources", () => {
  it("uses payments revenue for blended ROAS when payments is connected", async () => {
    const a = await t.tenant();
    await a.post("/api/connectors", { type: "payments", credentials: { apiKey: STRIPE_KEY } });
    await a.post("/api/connectors", { type: "crm", credentials: { accessToken: HUBSPOT_PRIVATE_TOKEN } });
    await sync(a);
    const o = await a.get("/api/metrics?period=7d");
    expect(o.body.totals).toEqual({
      spend: 0,
      impressions: 0,
      clicks: 0,
      conversions: 0,
      revenue: 159,
      revenueSource: "payments",
      cpa: null,
      roas: null,
    });
    expect(o.body.connectors.map((c: { connectorType: string }) => c.connectorType)).toEqual([
      "crm",
      "payments",
    ]);
  });
});
