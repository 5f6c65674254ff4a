import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { STORED_EXACT, VisitorSketch, visitorHash } from "../analytics/ingest/hll.js";
import { BROWSER_UA } from "../analytics/analytics.testing.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ allowPrivateWebhookTargets: true });
});
afterAll(async () => t.close());

const SHOP = "https://shop.example.com";
const HOUR = 3_600_000;

async function track(a: Tenant, body: Record<string, unknown>): Promise<void> {
  const res = await a.post(
    "/api/events",
    { projectKey: a.publicKey, ...body },
    { as: "none", headers: { "user-agent": BROWSER_UA } },
  );
  expect(res.status).toBe(200);
}

const summary = async (a: Tenant) => (await a.get("/api/analytics/summary?period=7d")).body;
const breakdown = async (a: Tenant, by: string) =>
  Object.fromEntries(
    (await a.get(`/api/analytics/breakdown?period=7d&by=${by}`)).body.rows.map(
      (r: { key: string; visitors: number; conversions: number; revenue: number }) => [
        r.key,
        [r.visitors, r.conversions, r.revenue],
      ],
    ),
  );

/**
 * Alice: two visitors (phone from a newsletter, then her laptop from Google), linked to the lead
 * `alice` with a plan property; the phone is exposed to an experiment and buys for 40.
 * Bob: one direct visit. Hand-computed: before, 3 visitors, 1 lead, 1 conversion of 40.
 */
async function seed(a: Tenant): Promise<string> {
  await a.post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" });
  // Nothing listens there: deliveries are made (and fail), which is all this needs.
  const hook = await a.post("/api/webhooks", {
    url: "https://localhost:9/hook",
    events: ["lead.created", "lead.updated"],
  });
  expect(hook.status).toBe(201);
  const exp = await a.post("/api/experiments", {
    name: "Button",
    targetUrl: "/pricing",
    variants: [{ name: "control" }, { name: "green" }],
  });
  await a.patch("/api/experiments", { id: exp.body.id, status: "running" });
  const t0 = Date.now() - 3 * HOUR;
  const at = (min: number) => new Date(t0 + min * 60_000).toISOString();
  await track(a, {
    type: "pageview",
    visitorId: "alice-phone",
    url: `${SHOP}/pricing?utm_source=newsletter&utm_medium=email`,
    timestamp: at(0),
  });
  await track(a, {
    type: "$exposure",
    visitorId: "alice-phone",
    url: `${SHOP}/pricing`,
    data: { experimentId: exp.body.id, variant: "green" },
    timestamp: at(1),
  });
  await track(a, {
    type: "purchase",
    visitorId: "alice-phone",
    url: `${SHOP}/thanks`,
    data: { revenue: 40 },
    timestamp: at(2),
  });
  await track(a, {
    type: "pageview",
    visitorId: "alice-laptop",
    url: `${SHOP}/`,
    referrer: "https://www.google.com/",
    timestamp: at(30),
  });
  await track(a, { type: "pageview", visitorId: "bob", url: `${SHOP}/`, timestamp: at(40) });
  for (const visitorId of ["alice-phone", "alice-laptop"]) {
    const link = await a.post("/api/identity", { visitorId, leadId: "alice", traits: { plan: "pro" } });
    expect(link.status).toBe(200);
  }
  return exp.body.id;
}

describe("erasure", () => {
  let a: Tenant;
  let experimentId: string;
  beforeAll(async () => {
    a = await t.tenant();
    experimentId = await seed(a);
  });

  it("DELETE /api/leads/:id removes the lead everywhere and the summary no longer counts it (hand-computed)", async () => {
    expect(await summary(a)).toMatchObject({ visitors: 3, leads: 1, conversions: 1 });
    expect(await breakdown(a, "source")).toMatchObject({ newsletter: [1, 1, 40], google: [1, 0, 0] });
    await t.app.worker.drain();
    const mentions = async () => {
      const events = await t.app.db
        .selectFrom("service_events")
        .select("data")
        .where("project_id", "=", a.projectId)
        .execute();
      const deliveries = await t.app.db.selectFrom("webhook_deliveries").select("payload").execute();
      return [...events.map((e) => e.data), ...deliveries.map((d) => d.payload)].filter((x) =>
        x.includes('"alice"'),
      ).length;
    };
    expect(await mentions()).toBeGreaterThanOrEqual(4); // lead.created, lead.updated, their deliveries

    const res = await a.del("/api/leads/alice");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      subject: "lead",
      erasedBy: { kind: "apiKey" },
      removed: { events: 4, visitors: 2, sessions: 2, conversions: 1, exposures: 1 },
      repeated: false,
    });
    expect(res.body.removed.notifications).toBeGreaterThanOrEqual(2);
    expect(res.body.removed.webhookDeliveries).toBe(res.body.removed.notifications);
    expect(await mentions()).toBe(0);
    const activity = await t.app.db
      .selectFrom("analytics_activity")
      .select("visitor_id")
      .distinct()
      .where("project_id", "=", a.projectId)
      .execute();
    expect(activity.map((r) => r.visitor_id)).toEqual(["bob"]);
    const retention = (await a.get("/api/analytics/retention?period=7d&interval=day")).body;
    expect(retention.cohorts.reduce((n: number, c: { size: number }) => n + c.size, 0)).toBe(1);

    expect(await summary(a)).toMatchObject({ visitors: 1, leads: 0, conversions: 0 });
    const sources = await breakdown(a, "source");
    expect(sources.newsletter ?? [0, 0, 0]).toEqual([0, 0, 0]);
    expect(sources.google ?? [0, 0, 0]).toEqual([0, 0, 0]);
    expect(await breakdown(a, "event_type")).toMatchObject({ pageview: [1, 0, 0] });
    expect((await breakdown(a, "event_type")).purchase ?? [0, 0, 0]).toEqual([0, 0, 0]);

    expect((await a.get("/api/leads/alice")).status).toBe(404);
    expect((await a.get("/api/leads?where[plan]=pro")).body.items).toEqual([]);
    const journey = await a.get("/api/identity?visitorId=alice-phone");
    expect(journey.body.events ?? []).toEqual([]);
    expect(journey.body.lead ?? null).toBeNull();
    const exported = await a.get("/api/export/events?format=ndjson");
    expect(exported.text).not.toContain("alice");
    expect(exported.text).toContain('"bob"');
    const exp = (await a.get(`/api/experiments/${experimentId}`)).body;
    expect(exp.results.totalExposures).toBe(0);
    const attribution = (await a.get("/api/analytics/attribution?period=7d&model=last_touch")).body;
    expect(JSON.stringify(attribution)).not.toMatch(/"revenue":[1-9]/);
  });

  it("is idempotent: a repeat answers the first record, and the record holds no personal data", async () => {
    const first = (await a.get("/api/erasures")).body.items[0];
    const again = await a.del("/api/leads/alice");
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id: first.id, repeated: true });
    const list = await a.get("/api/erasures");
    expect(list.body.items).toHaveLength(1);
    expect(JSON.stringify(list.body)).not.toMatch(/alice|pro|newsletter/);
  });

  it("DELETE /api/identity?visitorId= erases one visitor; two at once erase once", async () => {
    const [x, y] = await Promise.all([
      a.del("/api/identity?visitorId=bob"),
      a.del("/api/identity?visitorId=bob"),
    ]);
    expect([x.status, y.status]).toEqual([200, 200]);
    expect([x.body.repeated, y.body.repeated].sort()).toEqual([false, true]);
    expect(x.body.id).toBe(y.body.id);
    expect(x.body.removed).toMatchObject({ events: 1, sessions: 1 });
    expect(await summary(a)).toMatchObject({ visitors: 0 });
    expect((await a.get("/api/erasures")).body.items).toHaveLength(2);
  });

  it("refuses what it cannot do: unknown subjects 404, members 403, no key 401", async () => {
    expect((await a.del("/api/leads/nobody")).body.code).toBe("NOT_FOUND");
    expect((await a.del("/api/identity?visitorId=never-seen")).status).toBe(404);
    expect((await a.del("/api/identity")).status).toBe(400);
    expect((await a.get("/api/erasures")).body.items).toHaveLength(2);
    expect((await a.del("/api/leads/alice", undefined, { as: "member" })).status).toBe(403);
    expect((await a.del("/api/leads/alice", undefined, { as: "none" })).status).toBe(401);
    const byAdmin = await a.del("/api/leads/alice", undefined, { as: "admin" });
    expect(byAdmin.body).toMatchObject({ repeated: true, erasedBy: { kind: "apiKey" } });
  });
});

describe("erasure during ingest", () => {
  it("loses no event of others and leaves the counts exact", async () => {
    const a = await t.tenant();
    const ts = new Date(Date.now() - HOUR).toISOString();
    for (let i = 0; i < 5; i++)
      await track(a, { type: "pageview", visitorId: "gone", url: `${SHOP}/`, timestamp: ts });
    const others = Array.from({ length: 120 }, (_, i) => `o${i}`);
    const [erased] = await Promise.all([
      a.del("/api/identity?visitorId=gone"),
      ...others.map((visitorId) => track(a, { type: "pageview", visitorId, url: `${SHOP}/`, timestamp: ts })),
    ]);
    expect(erased.status).toBe(200);
    expect(erased.body.removed.events).toBe(5);
    const lines = (await a.get("/api/export/events?format=ndjson")).text.trim().split("\n");
    expect(lines).toHaveLength(120);
    expect(await summary(a)).toMatchObject({ visitors: 120 });
  });
});

describe("erasure with dense sketches", () => {
  it("rebuilds a day's sketch to exactly what the remaining visitors give", async () => {
    const a = await t.tenant();
    // Past the exact set a stored row keeps (STORED_EXACT visitors): the row is a dense sketch.
    const ids = Array.from({ length: STORED_EXACT + 200 }, (_, i) => `v${i}`);
    const ts = new Date(Date.now() - HOUR).toISOString();
    const basic = { authorization: `Basic ${Buffer.from(`${a.apiKey}:`).toString("base64")}` };
    for (let i = 0; i < ids.length; i += 1000) {
      const batch = ids.slice(i, i + 1000).map((anonymousId) => ({
        type: "page",
        anonymousId,
        properties: { url: `${SHOP}/` },
        context: { userAgent: BROWSER_UA },
        timestamp: ts,
      }));
      expect((await a.post("/v1/batch", { batch }, { as: "none", headers: basic })).status).toBe(200);
    }
    const sketchOf = (list: string[]) => {
      const s = new VisitorSketch();
      for (const v of list) s.add(visitorHash(v));
      return s.serialize();
    };
    // A visitor whose hash alone sets a register: leaving it in the sketch would be visible.
    const gone = ids.find((v) => sketchOf(ids) !== sketchOf(ids.filter((w) => w !== v)))!;
    expect(gone).toBeDefined();
    const day = Math.floor(Date.parse(ts) / 86_400_000);
    const stored = async () =>
      (
        await t.app.db
          .selectFrom("analytics_daily")
          .select("visitors_sketch")
          .where("project_id", "=", a.projectId)
          .where("day", "=", day)
          .where("channel", "=", "$all")
          .executeTakeFirstOrThrow()
      ).visitors_sketch;
    expect(await stored()).toBe(sketchOf(ids));
    expect(VisitorSketch.parse(await stored()).isExact).toBe(false);
    expect((await a.del(`/api/identity?visitorId=${gone}`)).status).toBe(200);
    expect(await stored()).toBe(sketchOf(ids.filter((v) => v !== gone)));
  });
});
