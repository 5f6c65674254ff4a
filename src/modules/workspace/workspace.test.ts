import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, startTestApp } from "../../../test/helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe("sign-in", () => {
  it("logs in, reads /me with the cookie, and logs out", async () => {
    const a = await t.tenant();
    const res = await t.app.inject({
      method: "POST",
      url: "/api/auth/login",
      headers: { "content-type": "application/json" },
      payload: { email: a.admin.email.toUpperCase(), password: "correct horse battery" },
    });
    expect(res.statusCode).toBe(200);
    const setCookie = String(res.headers["set-cookie"]);
    expect(setCookie).toMatch(/^svc_session=/);
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Lax/);
    const cookie = setCookie.split(";")[0]!;
    const me = await a.get("/api/auth/me", { as: "none", headers: { cookie } });
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({ email: a.admin.email, role: "admin", workspaceId: a.workspaceId });
    expect(me.body.user.passwordHash).toBeUndefined();
    const out = await a.post("/api/auth/logout", undefined, { as: "none", headers: { cookie } });
    expect(out.status).toBe(200);
    expect(String(out.headers["set-cookie"])).toMatch(/svc_session=;/);
  });

  it("refuses a wrong password and an unknown email alike", async () => {
    const a = await t.tenant();
    const wrong = await a.post(
      "/api/auth/login",
      { email: a.admin.email, password: "nope-nope" },
      { as: "none" },
    );
    const unknown = await a.post(
      "/api/auth/login",
      { email: "nobody@example.com", password: "nope-nope" },
      { as: "none" },
    );
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual({
      error: "invalid email or password",
      code: "UNAUTHORIZED",
      status: 401,
      requestId: expect.any(String),
    });
    // Alike but for the request's own id.
    expect({ ...unknown.body, requestId: "" }).toEqual({ ...wrong.body, requestId: "" });
  });

  it("400 names the missing field", async () => {
    const a = await t.tenant();
    const res = await a.post("/api/auth/login", { email: a.admin.email }, { as: "none" });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    expect(res.body.error).toMatch(/password/);
  });

  it("401 on a tampered session cookie and with no credentials", async () => {
    const a = await t.tenant();
    const bad = await a.get("/api/auth/me", { as: "none", headers: { cookie: `${a.adminCookie}x` } });
    expect(bad.status).toBe(401);
    const none = await a.get("/api/workspace", { as: "none" });
    expect(none).toMatchObject({ status: 401, body: { code: "UNAUTHORIZED", status: 401 } });
  });
});

describe("workspace admin endpoints", () => {
  it("reads and renames the workspace; the tier is validated, and only the operator changes it", async () => {
    const a = await t.tenant();
    expect((await a.get("/api/workspace", { as: "admin" })).body).toMatchObject({
      id: a.workspaceId,
      tier: "free",
    });
    const p = await a.patch("/api/workspace", { name: "Acme" }, { as: "admin" });
    expect(p.body).toEqual({ id: a.workspaceId, name: "Acme", tier: "free" });
    expect((await a.patch("/api/workspace", { tier: "pro" }, { as: "admin" })).status).toBe(403);
    const bad = await a.patch("/api/workspace", { tier: "platinum" }, { as: "admin" });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/tier/);
  });

  it("members read the workspace but get 403 on admin routes; API keys get 403 too", async () => {
    const a = await t.tenant();
    expect((await a.get("/api/workspace", { as: "member" })).status).toBe(200);
    expect((await a.patch("/api/workspace", { name: "x" }, { as: "member" })).status).toBe(403);
    const forbidden = await a.get("/api/projects", { as: "key" });
    expect(forbidden.body).toMatchObject({ code: "FORBIDDEN", status: 403 });
    expect((await a.get("/api/workspace/users", { as: "member" })).status).toBe(403);
  });

  it("creates, lists and deletes users; no hash in responses; duplicate email 409", async () => {
    const a = await t.tenant();
    const created = await a.post(
      "/api/workspace/users",
      { email: "New@Example.com", role: "member", password: "longenough" },
      { as: "admin" },
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ email: "new@example.com", role: "member" });
    expect(JSON.stringify(created.body)).not.toMatch(/scrypt|password/i);
    const dup = await a.post(
      "/api/workspace/users",
      { email: "new@example.com", role: "member", password: "longenough" },
      { as: "admin" },
    );
    expect(dup.status).toBe(409);
    const short = await a.post(
      "/api/workspace/users",
      { email: "x@example.com", role: "member", password: "short" },
      { as: "admin" },
    );
    expect(short.status).toBe(400);
    const badRole = await a.post(
      "/api/workspace/users",
      { email: "y@example.com", role: "owner", password: "longenough" },
      { as: "admin" },
    );
    expect(badRole.status).toBe(400);
    const list = await a.get("/api/workspace/users", { as: "admin" });
    expect(list.body.map((u: { email: string }) => u.email)).toEqual(["new@example.com", a.admin.email]);
    const del = await a.del(`/api/workspace/users/${created.body.id}`, undefined, { as: "admin" });
    expect(del.body).toEqual({ id: created.body.id, deleted: true });
    expect((await a.del(`/api/workspace/users/${created.body.id}`, undefined, { as: "admin" })).status).toBe(
      404,
    );
  });

  it("another workspace's user, project and key are 404", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    expect((await a.del(`/api/workspace/users/${b.admin.id}`, undefined, { as: "admin" })).status).toBe(404);
    expect((await a.get(`/api/projects/${b.projectId}/keys`, { as: "admin" })).status).toBe(404);
    expect(
      (await a.del(`/api/projects/${b.projectId}/keys/${b.key.id}`, undefined, { as: "admin" })).status,
    ).toBe(404);
    expect(
      (await a.del(`/api/projects/${a.projectId}/keys/${b.key.id}`, undefined, { as: "admin" })).status,
    ).toBe(404);
  });
});

describe("projects and keys", () => {
  it("creates a project with a public key; mints a key shown once; deleting it fails the key at once", async () => {
    const a = await t.tenant();
    const p = await a.post("/api/projects", { name: "Site" }, { as: "admin" });
    expect(p.status).toBe(201);
    expect(p.body.publicKey).toMatch(/^svc_pk_[0-9A-Za-z]+$/);
    const k = await a.post(`/api/projects/${p.body.id}/keys`, { name: "server" }, { as: "admin" });
    expect(k.status).toBe(201);
    expect(k.body.rawKey).toMatch(/^svc_key_[0-9A-Za-z]{40,}$/);
    expect(k.body.rawKey.startsWith(k.body.prefix)).toBe(true);
    const list = await a.get(`/api/projects/${p.body.id}/keys`, { as: "admin" });
    expect(list.body).toHaveLength(1);
    expect(list.body[0].rawKey).toBeUndefined();
    expect(JSON.stringify(list.body)).not.toContain(k.body.rawKey);

    const use = () =>
      a.get("/api/workspace", { as: "none", headers: { authorization: `Bearer ${k.body.rawKey}` } });
    // The key authenticates (403: a key is not a session), then stops authenticating once deleted.
    expect((await use()).status).toBe(403);
    await a.del(`/api/projects/${p.body.id}/keys/${k.body.id}`, undefined, { as: "admin" });
    expect((await use()).status).toBe(401);
  });

  it("stores only the SHA-256 of a key", async () => {
    const a = await t.tenant();
    const rows = await t.app.db
      .selectFrom("project_keys")
      .selectAll()
      .where("project_id", "=", a.projectId)
      .execute();
    expect(rows[0]!.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(a.apiKey);
  });
});

describe("platform", () => {
  it("unknown routes answer 404 in the error format", async () => {
    const res = await t.app.inject({ method: "GET", url: "/api/nope" });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: "NOT_FOUND", status: 404 });
  });

  it("415 for a mutating request whose body is not JSON", async () => {
    const a = await t.tenant();
    const res = await a.post("/api/projects", "name=x", {
      as: "admin",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ code: "UNSUPPORTED_MEDIA_TYPE", status: 415 });
    const plain = await a.post("/api/projects", JSON.stringify({ name: "x" }), {
      as: "admin",
      headers: { "content-type": "text/plain" },
    });
    expect(plain.status).toBe(415);
  });

  it("malformed JSON is a 400, never a 500", async () => {
    const a = await t.tenant();
    const res = await a.post("/api/projects", "{not json", { as: "admin" });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
  });

  it("serves /healthz, /metrics, /openapi.json and /docs", async () => {
    expect((await t.app.inject({ url: "/healthz" })).json()).toEqual({ status: "ok" });
    const metrics = await t.app.inject({ url: "/metrics" });
    expect(metrics.body).toContain("http_request_duration_seconds");
    // The /healthz answered above was observed under its own labels.
    expect(metrics.body).toMatch(
      /http_request_duration_seconds_count\{method="GET",route="\/healthz",status="200"\} [1-9]/,
    );
    const spec = (await t.app.inject({ url: "/openapi.json" })).json();
    expect(spec.openapi).toBe("3.1.0");
    expect(Object.keys(spec.paths)).toContain("/api/auth/login");
    const redirect = await t.app.inject({ url: "/docs" });
    const docs =
      redirect.statusCode === 301 ? await t.app.inject({ url: String(redirect.headers.location) }) : redirect;
    expect(docs.statusCode).toBe(200);
    expect(docs.headers["content-type"]).toMatch(/html/);
  });
});
