import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../../test/helpers/app.js";
import { sha256Hex } from "../../platform/crypto.js";
import { txTenant } from "./email.testing.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe("transactional API keys", () => {
  it("mints svc_tx_ keys with ≥32 bytes of base62, stores only the hash and lists prefixes", async () => {
    const a = await t.tenant();
    const res = await a.post("/api/transactional-api-keys", { name: "backend" }, { as: "admin" });
    expect(res.status).toBe(201);
    expect(res.body.rawKey).toMatch(/^svc_tx_[0-9A-Za-z]{43,}$/);
    const row = await t.app.db
      .selectFrom("tx_keys")
      .selectAll()
      .where("id", "=", res.body.id)
      .executeTakeFirstOrThrow();
    expect(row.key_hash).toBe(sha256Hex(res.body.rawKey));
    expect(JSON.stringify(row)).not.toContain(res.body.rawKey);
    const list = await a.get("/api/transactional-api-keys", { as: "admin" });
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    expect(Object.keys(list.body[0]).sort()).toEqual([
      "createdAt",
      "id",
      "lastUsedAt",
      "name",
      "prefix",
      "revokedAt",
    ]);
    expect(res.body.rawKey.startsWith(list.body[0].prefix)).toBe(true);
    expect(list.text).not.toContain(res.body.rawKey);
  });

  it("is admin only: member and project key get 403, no credentials 401", async () => {
    const a = await t.tenant();
    expect((await a.get("/api/transactional-api-keys", { as: "member" })).status).toBe(403);
    expect((await a.post("/api/transactional-api-keys", { name: "x" }, { as: "key" })).status).toBe(403);
    expect((await a.get("/api/transactional/recent", { as: "member" })).status).toBe(403);
    expect((await a.get("/api/transactional/suppressions", { as: "none" })).status).toBe(401);
  });

  it("a revoked key fails with 401 on the very next request and lastUsedAt is recorded", async () => {
    const a = await txTenant(t);
    const ok = await a.send({ to: "x@sandbox.svc.test", subject: "hi", text: "hello" });
    expect(ok.status).toBe(200);
    const listed = await a.get("/api/transactional-api-keys", { as: "admin" });
    expect(listed.body[0].lastUsedAt).not.toBeNull();
    const del = await a.del(`/api/transactional-api-keys/${a.keyId}`, undefined, { as: "admin" });
    expect(del.body).toEqual({ id: a.keyId, deleted: true });
    const after = await a.send({ to: "x@sandbox.svc.test", subject: "hi", text: "hello" });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({
      error: { code: "unauthorized", message: expect.any(String), requestId: expect.any(String) },
    });
    const again = await a.get("/api/transactional-api-keys", { as: "admin" });
    expect(again.body[0].revokedAt).not.toBeNull();
  });

  it("another workspace's key id is 404", async () => {
    const a = await txTenant(t);
    const b = await t.tenant();
    const res = await b.del(`/api/transactional-api-keys/${a.keyId}`, undefined, { as: "admin" });
    expect(res.status).toBe(404);
    expect((await a.send({ to: "x@sandbox.svc.test", subject: "hi", text: "t" })).status).toBe(200);
  });

  it("another workspace's send record is 404 and not in its recent list", async () => {
    const a = await txTenant(t);
    const b = await txTenant(t);
    const sent = await a.send({ to: "x@sandbox.svc.test", subject: "hi", text: "t" });
    expect((await b.get(`/api/transactional/sends/${sent.body.send_id}`, { as: "admin" })).status).toBe(404);
    expect((await b.get("/api/transactional/recent", { as: "admin" })).body).toEqual([]);
    expect((await a.get(`/api/transactional/sends/${sent.body.send_id}`, { as: "admin" })).status).toBe(200);
  });

  it("a project key or a session is not a transactional credential", async () => {
    const a = await txTenant(t);
    const viaProjectKey = await a.post(
      "/api/v1/transactional/send",
      { to: "x@y.io", subject: "s", text: "t" },
      { as: "key" },
    );
    expect(viaProjectKey.status).toBe(401);
    expect(viaProjectKey.body.error.code).toBe("unauthorized");
    const viaSession = await a.post(
      "/api/v1/transactional/send",
      { to: "x@y.io", subject: "s", text: "t" },
      { as: "admin" },
    );
    expect(viaSession.status).toBe(401);
    const viaHeader = await a.post(
      "/api/v1/transactional/send",
      { to: "x@sandbox.svc.test", subject: "s", text: "t" },
      { as: "none", headers: { "x-api-key": a.txKey } },
    );
    expect(viaHeader.status).toBe(200);
  });
});
