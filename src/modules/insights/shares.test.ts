import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { sha256Hex } from "../../platform/crypto.js";
import { seedFilterProject } from "../analytics/filters/filter-fixture.testing.js";

/** A dashboard's public link: read-only, no session, nothing of other projects, revoked at once. */
let t: TestApp;
let a: Tenant;
let b: Tenant;
let dashboardId: string;
let insightIds: string[];
beforeAll(async () => {
  t = await startTestApp();
  a = await t.tenant();
  b = await t.tenant();
  await seedFilterProject(a);
  await seedFilterProject(b);
  await b.post(
    "/api/events",
    { projectKey: b.publicKey, type: "pageview", visitorId: "only-in-b", url: "https://b.example/" },
    { as: "none", headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0 Safari/537.36" } },
  );
  const summary = await a.post("/api/insights", {
    kind: "summary",
    name: "Visitors this week",
    settings: { period: "7d" },
  });
  const channels = await a.post("/api/insights", {
    kind: "breakdown",
    name: "Channels",
    settings: { by: "channel", period: "7d", filter: [{ key: "lead.plan", op: "is", value: "free" }] },
  });
  insightIds = [summary.body.id, channels.body.id];
  const d = await a.post("/api/dashboards", {
    name: "For the board",
    items: [
      { insightId: summary.body.id, x: 0, y: 0, w: 6, h: 1 },
      { insightId: channels.body.id, x: 6, y: 0, w: 6, h: 1 },
    ],
  });
  dashboardId = d.body.id;
});
afterAll(async () => t.close());

/** The public endpoint as an anonymous browser: no cookie, no key. */
const open = (token: string) => t.app.inject({ url: `/api/shared/dashboards/${token}` });

describe("a dashboard's public link", () => {
  it("shows names and results without a session; stores only the token's hash; revoked at once", async () => {
    const link = await a.post(`/api/dashboards/${dashboardId}/share`);
    expect(link.status).toBe(201);
    const { token, url } = link.body;
    expect(token).toMatch(/^svc_share_[A-Za-z0-9]{43}$/);
    expect(url).toBe(`${t.config.publicUrl}/share/${token}`);
    const row = await t.app.db
      .selectFrom("dashboards")
      .selectAll()
      .where("id", "=", dashboardId)
      .executeTakeFirstOrThrow();
    expect(row.share_hash).toBe(sha256Hex(token));
    expect(JSON.stringify(row)).not.toContain(token);
    expect((await a.get(`/api/dashboards/${dashboardId}`)).body.shared).toEqual({ since: link.body.since });

    const res = await open(token);
    expect(res.statusCode).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    const view = res.json();
    expect(view.name).toBe("For the board");
    expect(view.tiles.map((x: { name: string }) => x.name)).toEqual(["Visitors this week", "Channels"]);
    // by hand: 3 web visitors and 2 conversions this week; the free-plan lead came from organic_social
    expect(view.tiles[0].answer.result).toMatchObject({ visitors: 3, conversions: 2 });
    expect(
      view.tiles[1].answer.result.rows.map((r: { key: string; visitors: number }) => [r.key, r.visitors]),
    ).toEqual([["organic_social", 1]]);
    // no ids, no settings (the filter's values), nothing of project b
    for (const secret of [
      ...insightIds,
      dashboardId,
      a.projectId,
      a.workspaceId,
      "lead.plan",
      b.projectId,
      "only-in-b",
    ])
      expect(res.body).not.toContain(secret);

    // revoked: the very next request is 404, with or without the cache warm
    expect((await a.del(`/api/dashboards/${dashboardId}/share`)).body).toEqual({
      id: dashboardId,
      deleted: true,
    });
    const gone = await open(token);
    expect(gone.statusCode).toBe(404);
    expect(gone.json()).toMatchObject({ code: "NOT_FOUND", status: 404 });
    expect((await a.get(`/api/dashboards/${dashboardId}`)).body.shared).toBeNull();
    expect((await a.del(`/api/dashboards/${dashboardId}/share`)).status).toBe(404);
  });

  it("a new link replaces the old one; unknown and malformed tokens are 404; deleting the dashboard ends it", async () => {
    const first = (await a.post(`/api/dashboards/${dashboardId}/share`)).body.token;
    const second = (await a.post(`/api/dashboards/${dashboardId}/share`)).body.token;
    expect(second).not.toBe(first);
    expect((await open(first)).statusCode).toBe(404);
    expect((await open(second)).statusCode).toBe(200);
    for (const wrong of [`svc_share_${"x".repeat(43)}`, "nonsense", `${second}x`, second.slice(0, -1)])
      expect((await open(wrong)).statusCode).toBe(404);
    const other = await a.post("/api/dashboards", { name: "Doomed" });
    const token = (await a.post(`/api/dashboards/${other.body.id}/share`)).body.token;
    expect((await open(token)).statusCode).toBe(200);
    await a.del(`/api/dashboards/${other.body.id}`);
    expect((await open(token)).statusCode).toBe(404);
  });

  it("is read-only: no other method answers on it, and nothing changes", async () => {
    const token = (await a.post(`/api/dashboards/${dashboardId}/share`)).body.token;
    const before = await a.get(`/api/dashboards/${dashboardId}`);
    for (const method of ["POST", "PUT", "PATCH", "DELETE"] as const) {
      const res = await t.app.inject({
        method,
        url: `/api/shared/dashboards/${token}`,
        headers: { "content-type": "application/json" },
        payload: JSON.stringify({ name: "pwned", items: [] }),
      });
      expect(res.statusCode, method).toBe(404);
    }
    expect((await a.get(`/api/dashboards/${dashboardId}`)).body).toEqual(before.body);
    // a session of another workspace sees the same public view, nothing more
    const withCookie = await t.app.inject({
      url: `/api/shared/dashboards/${token}`,
      headers: { cookie: b.adminCookie },
    });
    expect(withCookie.json().name).toBe("For the board");
  });

  it("computes results at most once a minute per dashboard version; an edit shows at once", async () => {
    const token = (await a.post(`/api/dashboards/${dashboardId}/share`)).body.token;
    const first = (await open(token)).json();
    await a.post(
      "/api/events",
      { projectKey: a.publicKey, type: "pageview", visitorId: "late", url: "https://shop.example.com/" },
      { as: "none", headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0 Safari/537.36" } },
    );
    const cached = (await open(token)).json();
    expect(cached.computedAt).toBe(first.computedAt);
    expect(cached.tiles[0].answer.result.visitors).toBe(3);
    // the signed-in view keeps the same answer (one per version) until its Refresh
    const kept = await a.get(`/api/dashboards/${dashboardId}/results`);
    expect(kept.body).toMatchObject({ computedAt: first.computedAt });
    const fresh = await a.get(`/api/dashboards/${dashboardId}/results?refresh=true`);
    expect(fresh.body.tiles[0].answer.result.visitors).toBe(4);
    await a.patch(`/api/dashboards/${dashboardId}`, { name: "For the board (v2)" });
    const edited = (await open(token)).json();
    expect(edited.name).toBe("For the board (v2)");
    expect(edited.tiles[0].answer.result.visitors).toBe(4);
  });

  it("does not show an edited insight's old result", async () => {
    const token = (await a.post(`/api/dashboards/${dashboardId}/share`)).body.token;
    const before = (await open(token)).json();
    const visitors = before.tiles[0].answer.result.visitors;
    await a.post(
      "/api/events",
      { projectKey: a.publicKey, type: "pageview", visitorId: "later", url: "https://shop.example.com/" },
      { as: "none", headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/126.0 Safari/537.36" } },
    );
    expect((await open(token)).json()).toEqual(before);
    // the dashboard is not touched: only the insight's own edit makes a new version
    const renamed = await a.patch(`/api/insights/${insightIds[0]}`, { name: "Visitors, 7 days" });
    expect(renamed.status).toBe(200);
    const after = (await open(token)).json();
    expect(after.tiles[0].name).toBe("Visitors, 7 days");
    expect(after.tiles[0].answer.result.visitors).toBe(visitors + 1);
    expect(after.computedAt).not.toBe(before.computedAt);
  });
});

describe("rate limit of the public link", () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await startTestApp({ rateLimits: { events: 1000, reads: 3, writes: 100 } });
  });
  afterAll(async () => limited.close());

  it("answers 429 past the read limit per address, with Retry-After", async () => {
    const c = await limited.tenant();
    const d = await c.post("/api/dashboards", { name: "Popular" });
    const token = (await c.post(`/api/dashboards/${d.body.id}/share`)).body.token;
    const codes = [];
    for (let i = 0; i < 5; i++)
      codes.push((await limited.app.inject({ url: `/api/shared/dashboards/${token}` })).statusCode);
    expect(codes).toEqual([200, 200, 200, 429, 429]);
    const res = await limited.app.inject({ url: "/api/shared/dashboards/svc_share_unknown" });
    expect(res.statusCode).toBe(429);
    expect(res.headers["retry-after"]).toBeDefined();
    expect(res.json()).toMatchObject({ code: "RATE_LIMITED" });
  });
});
