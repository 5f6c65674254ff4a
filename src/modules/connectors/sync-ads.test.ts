import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openCredentials } from "./store.js";
import { type TestApp, type Tenant, startTestApp } from "../../../test/helpers/app.js";
import { startGa4Fake } from "../../../test/fakes/ga4.js";
import { startGoogleAdsFake } from "../../../test/fakes/google-ads.js";
import { startLinkedinFake } from "../../../test/fakes/linkedin.js";
import { startMetaFake } from "../../../test/fakes/meta.js";
import type { FakePlatform } from "../../../test/fakes/server.js";
import { TEST_DEVELOPER_TOKEN, connectOAuth, eventually, platformConfig } from "./connectors.testing.js";

let t: TestApp;
let gads: FakePlatform;
let ga4: FakePlatform;
let meta: FakePlatform;
let li: FakePlatform;
const client = (id: string) => ({ id: `${id}-client`, secret: `${id}-secret` });

beforeAll(async () => {
  gads = await startGoogleAdsFake(client("gads"));
  ga4 = await startGa4Fake(client("ga4"));
  meta = await startMetaFake(client("meta"));
  li = await startLinkedinFake(client("li"));
  t = await startTestApp(
    platformConfig([
      ["search_ads", gads, client("gads")],
      ["web_analytics", ga4, client("ga4")],
      ["social_ads", meta, client("meta")],
      ["professional_network_ads", li, client("li")],
    ]),
  );
});
afterAll(async () => {
  await t.close();
  for (const f of [gads, ga4, meta, li]) await f.close();
});

async function sync(a: Tenant) {
  const started = await a.get("/api/sync/run");
  expect(started.status).toBe(200);
  await t.app.worker.drain();
  return started.body as { status: string; syncId: string; connectors: string[] };
}
const events = (projectId: string, type: string) =>
  t.app.db
    .selectFrom("service_events")
    .selectAll()
    .where("project_id", "=", projectId)
    .where("type", "=", type as never)
    .execute();

describe("ad platforms sync end to end", () => {
  it("search_ads: GAQL rows land; metrics equal the hand-computed sums", async () => {
    const a = await t.tenant();
    await connectOAuth(a, "search_ads", gads);
    const s = await sync(a);
    expect(s).toEqual({
      status: "started",
      syncId: expect.stringMatching(/^sync_/),
      connectors: ["search_ads"],
    });
    const progress = await a.get(`/api/sync/${s.syncId}`);
    expect(progress.body).toMatchObject({
      status: "completed",
      connectors: [{ type: "search_ads", status: "done", rows: 4 }],
    });
    // 7d: Brand 12.5+7.5 spend, 4+1 conv, 200+50 value; Generic 30, 2 conv, 120 value.
    const week = await a.get("/api/metrics/search_ads?period=7d");
    expect(week.body).toEqual({
      connectorType: "search_ads",
      spend: 50,
      impressions: 4600,
      clicks: 210,
      conversions: 7,
      revenue: 370,
      cpa: 7.14,
      roas: 7.4,
      campaigns: [
        { name: "Generic - Search", spend: 30, conversions: 2 },
        { name: "Brand - Search", spend: 20, conversions: 5 },
      ],
      period: { from: expect.any(String), to: expect.any(String) },
    });
    const month = await a.get("/api/metrics/search_ads");
    expect(month.body).toMatchObject({
      spend: 150,
      impressions: 13600,
      clicks: 510,
      conversions: 12,
      revenue: 770,
      cpa: 12.5,
      roas: 5.13,
    });
    const list = await a.get("/api/connectors");
    expect(list.body[0]).toMatchObject({
      type: "search_ads",
      status: "connected",
      lastSync: expect.any(String),
    });
    const synced = await events(a.projectId, "connector.synced");
    expect(synced).toHaveLength(1);
    expect(JSON.parse(synced[0]!.data)).toMatchObject({ type: "search_ads", syncId: s.syncId, rows: 4 });
    // The developer token header went with the GAQL call.
    const calls = gads.calls(/searchStream/);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((r) => r.headers["developer-token"] === TEST_DEVELOPER_TOKEN)).toBe(true);
  });

  it("social_ads: insights paged by cursor; purchases + leads are conversions, purchase value is revenue", async () => {
    const a = await t.tenant();
    await connectOAuth(a, "social_ads", meta);
    await sync(a);
    const m = await a.get("/api/metrics/social_ads?period=7d");
    expect(m.body).toMatchObject({
      spend: 160,
      impressions: 27500,
      clicks: 610,
      conversions: 13,
      revenue: 550.5,
      cpa: 12.31,
      roas: 3.44,
      campaigns: [
        { name: "Prospecting", spend: 100, conversions: 7 },
        { name: "Retargeting", spend: 60, conversions: 6 },
      ],
    });
    expect(meta.calls(/insights$/).length).toBeGreaterThanOrEqual(2);
  });

  it("professional_network_ads: adAnalytics pivot CAMPAIGN with names from adCampaigns pages", async () => {
    const a = await t.tenant();
    await connectOAuth(a, "professional_network_ads", li);
    await sync(a);
    const week = await a.get("/api/metrics/professional_network_ads?period=7d");
    expect(week.body).toMatchObject({
      spend: 100,
      impressions: 5000,
      clicks: 40,
      conversions: 4,
      revenue: 600,
      cpa: 25,
      roas: 6,
      campaigns: [
        { name: "Decision makers", spend: 55.1, conversions: 3 },
        { name: "Engineers", spend: 44.9, conversions: 1 },
      ],
    });
    const month = await a.get("/api/metrics/professional_network_ads?period=30d");
    expect(month.body).toMatchObject({ spend: 180, conversions: 6, revenue: 900, cpa: 30, roas: 5 });
  });

  it("web_analytics: runReport paged by offset; sessions and conversions by channel", async () => {
    const a = await t.tenant();
    await connectOAuth(a, "web_analytics", ga4);
    await sync(a);
    const m = await a.get("/api/metrics/web_analytics?period=30d");
    expect(m.body).toEqual({
      connectorType: "web_analytics",
      sessions: 550,
      conversions: 18,
      campaigns: [
        { name: "Organic Search", sessions: 300, conversions: 9 },
        { name: "Paid Search", sessions: 200, conversions: 8 },
        { name: "Direct", sessions: 50, conversions: 1 },
      ],
      period: expect.any(Object),
    });
    expect((await a.get("/api/metrics/web_analytics?period=90d")).body).toMatchObject({
      sessions: 1549,
      conversions: 117,
    });
  });

  it("overview: per-type rows, totals, blended CPA and ROAS", async () => {
    const a = await t.tenant();
    await connectOAuth(a, "search_ads", gads);
    await connectOAuth(a, "social_ads", meta);
    await connectOAuth(a, "professional_network_ads", li);
    const s = await sync(a);
    expect(s.connectors.sort()).toEqual(["professional_network_ads", "search_ads", "social_ads"]);
    const o = await a.get("/api/metrics?period=7d");
    expect(o.body.connectors.map((c: { connectorType: string }) => c.connectorType)).toEqual([
      "search_ads",
      "social_ads",
      "professional_network_ads",
    ]);
    expect(o.body.totals).toEqual({
      spend: 310,
      impressions: 37100,
      clicks: 860,
      conversions: 24,
      revenue: 1520.5,
      revenueSource: "ad_platforms",
      cpa: 12.92,
      roas: 4.9,
    });
  });
});

describe("rate limits and tokens", () => {
  it("429 with Retry-After is waited out by the client", async () => {
    const a = await t.tenant();
    await connectOAuth(a, "search_ads", gads);
    const before = gads.calls(/searchStream/).length;
    gads.rateLimitNext = 2;
    await sync(a);
    expect(gads.calls(/searchStream/).length - before).toBe(3);
    expect((await a.get("/api/metrics/search_ads?period=7d")).body.spend).toBe(50);
  });

  it("429 beyond the client's retries reschedules the job, which then succeeds", async () => {
    const a = await t.tenant();
    await connectOAuth(a, "professional_network_ads", li);
    li.rateLimitNext = 7;
    const s = await sync(a);
    await eventually(async () => {
      await t.app.worker.drain();
      return (await a.get(`/api/sync/${s.syncId}`)).body.status === "completed";
    });
    expect(li.rateLimitNext).toBe(0);
    // One run was rescheduled (RetryLater) and the second succeeded.
    const job = await t.app.db
      .selectFrom("jobs")
      .select(["attempts", "status"])
      .where("type", "=", "connectors.sync")
      .where("payload", "like", `%${s.syncId}%`)
      .executeTakeFirstOrThrow();
    expect(job).toEqual({ attempts: 2, status: "done" });
    expect((await a.get("/api/metrics/professional_network_ads?period=7d")).body.spend).toBe(100);
  });

  it("an expired access token gets one 401, a refresh, and the newest tokens are persisted", async () => {
    const a = await t.tenant();
    await connectOAuth(a, "web_analytics", ga4);
    const row = () =>
      t.app.db
        .selectFrom("connectors")
        .selectAll()
        .where("project_id", "=", a.projectId)
        .executeTakeFirstOrThrow();
    const old = openCredentials(t.app.deps, (await row()).credentials);
    ga4.expireAccessTokens();
    const refreshes = ga4.refreshCount;
    await sync(a);
    expect(ga4.refreshCount - refreshes).toBe(1);
    const now = openCredentials(t.app.deps, (await row()).credentials);
    expect(now.accessToken).not.toBe(old.accessToken);
    expect(now.refreshToken).toBe(old.refreshToken); // Google keeps the refresh token
    expect((await row()).status).toBe("connected");
  });

  it("a token about to expire is refreshed before the call (no 401 round trip)", async () => {
    gads.accessTtlSeconds = 30;
    const a = await t.tenant();
    try {
      await connectOAuth(a, "search_ads", gads);
    } finally {
      gads.accessTtlSeconds = 3600;
    }
    const refreshes = gads.refreshCount;
    const before = gads.calls(/searchStream/).length;
    await sync(a);
    expect(gads.refreshCount - refreshes).toBe(1);
    expect(gads.calls(/searchStream/).length - before).toBe(1);
  });

  it("a grant that cannot be renewed → needs_reauth and connector.error", async () => {
    const a = await t.tenant();
    await connectOAuth(a, "social_ads", meta);
    meta.expireAccessTokens();
    const s = await sync(a);
    const list = await a.get("/api/connectors");
    expect(list.body[0]).toMatchObject({
      status: "needs_reauth",
      lastError: expect.stringMatching(/refresh refused/),
    });
    const errs = await events(a.projectId, "connector.error");
    expect(errs).toHaveLength(1);
    expect(JSON.parse(errs[0]!.data)).toMatchObject({
      type: "social_ads",
      syncId: s.syncId,
      status: "needs_reauth",
    });
    // A connector that needs a new consent is left out of later syncs.
    expect((await a.get("/api/sync/run")).body.connectors).toEqual([]);
  });
});
