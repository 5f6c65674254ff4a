import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../helpers/app.js";

/**
 * Issue 31, item 7: a cookie session's state changes must come from Lift's own pages. Before,
 * GET /api/sync/run started a sync from any site's link (SameSite=Lax sends the cookie on a
 * cross-site top-level navigation).
 */
let t: TestApp;
let a: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.tenant();
});
afterAll(async () => t?.close());

const syncs = async () =>
  (await t.app.db.selectFrom("connector_syncs").select("id").where("project_id", "=", a.projectId).execute())
    .length;

describe("cross-site requests on a cookie session", () => {
  it("GET /api/sync/run from another site is refused and starts nothing; from Lift's page it runs", async () => {
    const before = await syncs();
    const cross = await a.get("/api/sync/run", { as: "admin", headers: { "sec-fetch-site": "cross-site" } });
    expect(cross.status).toBe(403);
    expect(cross.body).toMatchObject({ code: "FORBIDDEN", status: 403 });
    expect(cross.body.error).toMatch(/cross-site/);
    const sameSite = await a.get("/api/sync/run", {
      as: "admin",
      headers: { "sec-fetch-site": "same-site" },
    });
    expect(sameSite.status).toBe(403);
    expect(await syncs()).toBe(before);
    const own = await a.get("/api/sync/run", { as: "admin", headers: { "sec-fetch-site": "same-origin" } });
    expect(own.status).toBe(200);
    const typed = await a.get("/api/sync/run", { as: "admin", headers: { "sec-fetch-site": "none" } });
    expect(typed.status).toBe(200);
    expect(await syncs()).toBe(before + 2);
  });

  it("writes with another site's Origin (no Sec-Fetch-Site) are refused; the same origin passes", async () => {
    const evil = await a.patch(
      "/api/workspace",
      { name: "Pwned" },
      { as: "admin", headers: { origin: "https://evil.example" } },
    );
    expect(evil.status).toBe(403);
    const own = await a.patch(
      "/api/workspace",
      { name: "Renamed" },
      { as: "admin", headers: { origin: "http://localhost:80", host: "localhost:80" } },
    );
    expect(own.status).toBe(200);
    const post = await a.post(
      "/api/goals",
      { metric: "signups", target: 5, deadline: "2030-01-01" },
      {
        as: "admin",
        headers: { "sec-fetch-site": "cross-site" },
      },
    );
    expect(post.status).toBe(403);
  });

  it("reads stay open to any site's navigation, and API keys are never checked", async () => {
    expect(
      (await a.get("/api/goals", { as: "admin", headers: { "sec-fetch-site": "cross-site" } })).status,
    ).toBe(200);
    const keyed = await a.get("/api/sync/run", { as: "key", headers: { "sec-fetch-site": "cross-site" } });
    expect(keyed.status).toBe(200);
  });
});
