import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { track } from "../analytics/analytics.testing.js";
import { upsertLeadByEmail } from "./service.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
});
afterAll(async () => t.close());

const stitch = (a: Tenant, visitorId: string, email: string) =>
  a.post("/api/identity/stitch", { projectKey: a.publicKey, visitorId, email }, { as: "none" });

/** Leads created in one millisecond tie on createdAt (then order by id): the order test needs distinct times. */
async function nextMillisecond() {
  const start = Date.now();
  while (Date.now() === start) await new Promise((r) => setImmediate(r));
}

interface Item {
  id: string;
  email: string;
  createdAt: string;
  firstTouch: { channel: string | null; source: string | null };
  visitors: number;
  conversions: number;
  revenue: number;
}

/**
 * ada: two visitors; va1 landed from an email campaign (utm_source=newsletter) and bought for 40
 *      before the stitch; va2 bought for 2.5 after it, then a refund of -10 → 2 conversions, 32.5.
 * bob: one visitor (direct), nothing bought. cy: a lead from the API, no visitor.
 */
async function seed(a: Tenant) {
  await a.post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" });
  await track(a, {
    type: "pageview",
    visitorId: "va1",
    url: "https://shop.example.com/?utm_source=newsletter&utm_medium=email",
  });
  await track(a, {
    type: "purchase",
    visitorId: "va1",
    url: "https://shop.example.com/buy",
    data: { revenue: 40 },
  });
  expect((await stitch(a, "va1", "Ada@Example.com")).status).toBe(200);
  await track(a, { type: "pageview", visitorId: "va2", url: "https://shop.example.com/" });
  expect((await stitch(a, "va2", "ada@example.com")).status).toBe(200);
  await track(a, {
    type: "purchase",
    visitorId: "va2",
    url: "https://shop.example.com/buy",
    data: { revenue: 2.5 },
  });
  await track(a, {
    type: "$revenue",
    visitorId: "va2",
    url: "https://shop.example.com/",
    data: { revenue: -10 },
  });
  await track(a, { type: "pageview", visitorId: "vb", url: "https://shop.example.com/" });
  await nextMillisecond();
  expect((await stitch(a, "vb", "bob@example.org")).status).toBe(200);
  await nextMillisecond();
  await upsertLeadByEmail(
    t.app.deps,
    { id: a.projectId, workspaceId: a.workspaceId },
    {
      email: "cy_100%@example.net",
      source: "api",
    },
  );
}

describe("GET /api/leads", () => {
  let a: Tenant;
  let all: Item[];
  beforeAll(async () => {
    a = await t.tenant();
    await seed(a);
    const res = await a.get("/api/leads");
    expect(res.status).toBe(200);
    all = res.body.items;
  });

  it("lists leads newest first with first touch, visitors, conversions and revenue", async () => {
    expect(all.map((l) => l.email)).toEqual(["cy_100%@example.net", "bob@example.org", "ada@example.com"]);
    const byEmail = Object.fromEntries(all.map((l) => [l.email, l]));
    expect(byEmail["ada@example.com"]).toMatchObject({
      firstTouch: { channel: "email", source: "newsletter" },
      visitors: 2,
      visitorIds: ["va1", "va2"],
      conversions: 2,
      revenue: 32.5,
    });
    expect(byEmail["bob@example.org"]).toMatchObject({
      firstTouch: { channel: "direct", source: null },
      visitors: 1,
      visitorIds: ["vb"],
      conversions: 0,
      revenue: 0,
    });
    expect(byEmail["cy_100%@example.net"]).toMatchObject({
      firstTouch: { channel: null, source: null },
      visitors: 0,
      visitorIds: [],
      conversions: 0,
      revenue: 0,
    });
    expect(all[0]!.id).toMatch(/^lead_/);
    expect(Date.parse(all[0]!.createdAt)).toBeGreaterThan(0);
    const times = all.map((l) => l.createdAt);
    expect(times).toEqual([...times].sort().reverse());
  });

  it("pages with a cursor: every lead once, in the same order, nextCursor null on the last page", async () => {
    const p1 = await a.get("/api/leads?limit=2");
    expect(p1.body.items).toHaveLength(2);
    expect(typeof p1.body.nextCursor).toBe("string");
    const p2 = await a.get(`/api/leads?limit=2&cursor=${encodeURIComponent(p1.body.nextCursor)}`);
    expect(p2.body.items).toHaveLength(1);
    expect(p2.body.nextCursor).toBeNull();
    expect([...p1.body.items, ...p2.body.items].map((l: Item) => l.id)).toEqual(all.map((l) => l.id));
    const exact = await a.get("/api/leads?limit=3");
    expect(exact.body.nextCursor).toBeNull();
  });

  it("searches by part of the email (case-insensitive, wildcards literal) or by lead id", async () => {
    const byPart = await a.get("/api/leads?q=EXAMPLE.");
    expect(byPart.body.items.map((l: Item) => l.email)).toEqual([
      "cy_100%@example.net",
      "bob@example.org",
      "ada@example.com",
    ]);
    expect((await a.get("/api/leads?q=.org")).body.items.map((l: Item) => l.email)).toEqual([
      "bob@example.org",
    ]);
    // % and _ are literal characters, not LIKE wildcards
    expect((await a.get(`/api/leads?q=${encodeURIComponent("_100%")}`)).body.items).toHaveLength(1);
    expect((await a.get(`/api/leads?q=${encodeURIComponent("%")}`)).body.items).toHaveLength(1);
    expect((await a.get("/api/leads?q=b_b")).body.items).toHaveLength(0);
    const ada = all.find((l) => l.email === "ada@example.com")!;
    const byId = await a.get(`/api/leads?q=${ada.id}`);
    expect(byId.body.items.map((l: Item) => l.id)).toEqual([ada.id]);
    expect((await a.get("/api/leads?q=nobody")).body).toEqual({ items: [], nextCursor: null });
  });

  it("400 on bad limit or cursor; 401 without credentials; a session sees its x-project-id project only", async () => {
    for (const q of ["limit=0", "limit=201", "limit=ten", "cursor=not-a-cursor"]) {
      const res = await a.get(`/api/leads?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
    }
    expect((await a.get("/api/leads", { as: "none" })).status).toBe(401);
    const session = await a.get("/api/leads", { as: "admin", headers: { "x-project-id": a.projectId } });
    expect(session.body.items).toHaveLength(3);
    const other = await t.tenant();
    expect((await other.get("/api/leads")).body).toEqual({ items: [], nextCursor: null });
    // another workspace's project id is not found, not someone else's leads
    const foreign = await other.get("/api/leads", { as: "admin", headers: { "x-project-id": a.projectId } });
    expect(foreign.status).toBe(404);
  });

  it("default page is 50, at most 200", async () => {
    const b = await t.tenant();
    const project = { id: b.projectId, workspaceId: b.workspaceId };
    for (let i = 0; i < 205; i++)
      await upsertLeadByEmail(t.app.deps, project, { email: `p${i}@example.com`, source: "api" });
    const first = await b.get("/api/leads");
    expect(first.body.items).toHaveLength(50);
    const max = await b.get("/api/leads?limit=200");
    expect(max.body.items).toHaveLength(200);
    const rest = await b.get(`/api/leads?limit=200&cursor=${encodeURIComponent(max.body.nextCursor)}`);
    expect(rest.body.items).toHaveLength(5);
    expect(new Set([...max.body.items, ...rest.body.items].map((l: Item) => l.id)).size).toBe(205);
  });
});
