import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type Tenant, type TestApp } from "../helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const URL_ = "https://shop.example/a";

/** One call to each public endpoint with `key` as the project key; returns the four statuses. */
async function publicStatuses(a: Tenant, key: string) {
  const events = await a.post(
    "/api/events",
    { projectKey: key, type: "pageview", visitorId: "v1", url: URL_ },
    { as: "none", headers: { "user-agent": "curl/8.5.0" } },
  );
  const stitch = await a.post(
    "/api/identity/stitch",
    { projectKey: key, visitorId: "v1", email: "buyer@shop.example" },
    { as: "none" },
  );
  const active = await a.get("/api/experiments/active", { as: "none", query: { key } });
  const snippet = await a.get("/api/svc-js", { as: "none", query: { key } });
  return [events.status, stitch.status, active.status, snippet.status];
}

describe("project keys on the public endpoints", () => {
  it("accept the secret API key (svc_key_…), the spec's project key format, for server-side callers", async () => {
    const a = await t.tenant();
    expect(a.apiKey).toMatch(/^svc_key_/);
    expect(await publicStatuses(a, a.apiKey)).toEqual([200, 200, 200, 200]);
    const rows = await t.app.db
      .selectFrom("events")
      .select("visitor_id")
      .where("project_id", "=", a.projectId)
      .execute();
    expect(rows.map((r) => r.visitor_id)).toEqual(["v1"]);
  });

  it("keep accepting the public key (svc_pk_…) for web pages", async () => {
    const a = await t.tenant();
    expect(a.publicKey).toMatch(/^svc_pk_/);
    expect(await publicStatuses(a, a.publicKey)).toEqual([200, 200, 200, 200]);
  });

  it("answer 401 to an unknown secret key, a deleted one on the next lookup, and a made-up public key", async () => {
    const a = await t.tenant();
    expect(await publicStatuses(a, `svc_key_${"x".repeat(48)}`)).toEqual([401, 401, 401, 401]);
    expect(await publicStatuses(a, "svc_pk_unknown")).toEqual([401, 401, 401, 401]);
    const minted = await a.post(`/api/projects/${a.projectId}/keys`, { name: "server" }, { as: "admin" });
    expect(minted.status).toBe(201);
    const del = await a.del(`/api/projects/${a.projectId}/keys/${minted.body.id}`, undefined, {
      as: "admin",
    });
    expect(del.status).toBe(200);
    // Never looked up before its deletion, so no cache can hold it.
    expect(await publicStatuses(a, minted.body.rawKey)).toEqual([401, 401, 401, 401]);
  });

  it("a key used, then deleted, is refused at once on this process (its remembered resolution is dropped)", async () => {
    const a = await t.tenant();
    const minted = await a.post(`/api/projects/${a.projectId}/keys`, { name: "server" }, { as: "admin" });
    expect(await publicStatuses(a, minted.body.rawKey)).toEqual([200, 200, 200, 200]);
    await a.del(`/api/projects/${a.projectId}/keys/${minted.body.id}`, undefined, { as: "admin" });
    expect(await publicStatuses(a, minted.body.rawKey)).toEqual([401, 401, 401, 401]);
  });

  it("a secret key acts on its own project, whichever tenant sends it", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    const res = await a.post(
      "/api/events",
      { projectKey: b.apiKey, type: "pageview", visitorId: "vb", url: URL_ },
      { as: "none", headers: { "user-agent": "curl/8.5.0" } },
    );
    expect(res.status).toBe(200);
    const rows = await t.app.db
      .selectFrom("events")
      .select("project_id")
      .where("visitor_id", "=", "vb")
      .execute();
    expect(rows.map((r) => r.project_id)).toEqual([b.projectId]);
  });
});
