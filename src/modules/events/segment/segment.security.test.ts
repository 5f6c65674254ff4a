import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../../../test/helpers/app.js";
import { call, storedEvents } from "./segment.testing.js";

let t: TestApp;
beforeAll(async () => {
  // A small limit, so the rate-limit cases need few requests.
  t = await startTestApp({ rateLimits: { events: 3, reads: 0, writes: 0 } });
});
afterAll(async () => t.close());

const body = { userId: "u", event: "E" };
const unauthorized = { code: "UNAUTHORIZED", status: 401 };

describe("Segment API: the write key", () => {
  it("missing or unknown: 401 in the spec's format, nothing stored", async () => {
    const a = await t.tenant();
    const none = await call(a, "/v1/track", body, { key: null });
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({
      ...unauthorized,
      error: "a write key is required: HTTP Basic with the key as user name, or writeKey in the body",
    });
    for (const key of ["svc_pk_unknown", "svc_key_unknown", "", "x".repeat(300)]) {
      const res = await call(a, "/v1/batch", { batch: [{ type: "track", ...body }] }, { key });
      expect(res.status, key).toBe(401);
      expect(res.body).toMatchObject(unauthorized);
    }
    const malformed = await call(a, "/v1/track", body, {
      key: null,
      headers: { authorization: "Basic %%%" },
    });
    expect(malformed.status).toBe(401);
    const bearer = await call(a, "/v1/track", body, {
      key: null,
      headers: { authorization: `Bearer ${a.apiKey}` },
    });
    expect(bearer.status).toBe(401);
    expect(await storedEvents(t, a)).toEqual([]);
  });

  it("a revoked secret key fails", async () => {
    const a = await t.tenant();
    const key = (await a.post(`/api/projects/${a.projectId}/keys`, { name: "soon revoked" }, { as: "admin" }))
      .body;
    expect((await call(a, "/v1/track", body, { key: key.rawKey })).status).toBe(200);
    await a.del(`/api/projects/${a.projectId}/keys/${key.id}`, undefined, { as: "admin" });
    const res = await call(a, "/v1/track", body, { key: key.rawKey });
    expect(res.status).toBe(401);
    expect(await storedEvents(t, a)).toHaveLength(1);
  });

  it("HTTP Basic (password ignored) or writeKey in the body; Basic wins; each key writes to its own project", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    const withPassword = `Basic ${Buffer.from(`${a.apiKey}:anything`).toString("base64")}`;
    expect(
      (await call(a, "/v1/track", body, { key: null, headers: { authorization: withPassword } })).status,
    ).toBe(200);
    expect((await call(a, "/v1/track", { ...body, writeKey: a.publicKey }, { key: null })).status).toBe(200);
    expect((await call(a, "/v1/track", { ...body, writeKey: a.publicKey }, { key: b.apiKey })).status).toBe(
      200,
    );
    expect(await storedEvents(t, a)).toHaveLength(2);
    expect(await storedEvents(t, b)).toHaveLength(1);
  });

  it("rate limit per write key: a batch is one request; 429 with Retry-After; other keys unaffected", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    const batch = { batch: Array.from({ length: 50 }, () => ({ type: "track", ...body })) };
    for (let i = 0; i < 3; i++) expect((await call(a, "/v1/batch", batch)).status).toBe(200);
    const limited = await call(a, "/v1/t", body);
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: "RATE_LIMITED", status: 429 });
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect(await storedEvents(t, a)).toHaveLength(150);
    // The public key is a write key of its own; another project's budget is untouched.
    expect((await call(a, "/v1/track", body, { key: a.publicKey })).status).toBe(200);
    expect((await call(b, "/v1/track", body)).status).toBe(200);
    // Unknown keys are refused before the limit: they never spend a project's budget.
    for (let i = 0; i < 5; i++)
      expect((await call(b, "/v1/track", body, { key: "svc_key_nope" })).status).toBe(401);
    expect((await call(b, "/v1/track", body)).status).toBe(200);
  });
});

describe("GET /v1/projects/:writeKey/settings", () => {
  it("401 for an unknown key; 403 for a secret key, which never belongs in a page", async () => {
    const a = await t.tenant();
    const unknown = await t.app.inject({ url: "/v1/projects/svc_pk_nope/settings" });
    expect(unknown.statusCode).toBe(401);
    expect(unknown.json()).toMatchObject(unauthorized);
    const secret = await t.app.inject({ url: `/v1/projects/${a.apiKey}/settings` });
    expect(secret.statusCode).toBe(403);
    expect(secret.json()).toMatchObject({ code: "FORBIDDEN", status: 403 });
    expect(secret.body).not.toContain(a.apiKey);
    const ok = await t.app.inject({ url: `/v1/projects/${a.publicKey}/settings` });
    expect(ok.statusCode).toBe(200);
  });
});
