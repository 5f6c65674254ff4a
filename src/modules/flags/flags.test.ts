import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type Tenant, type TestApp } from "../../../test/helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const serviceEvents = (a: Tenant) =>
  t.app.db
    .selectFrom("service_events")
    .selectAll()
    .where("project_id", "=", a.projectId)
    .where("type", "=", "flag.updated")
    .orderBy("created_at", "asc")
    .execute();

const payload = async (a: Tenant) => (await a.get(`/api/features/${a.publicKey}`, { as: "none" })).body;

describe("flags: create, read, change, delete", () => {
  it("creates a flag with typed default, rules with generated ids, and lists newest first", async () => {
    const a = await t.tenant();
    const first = await a.post("/api/flags", { key: "dark-mode", valueType: "boolean", defaultValue: false });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      key: "dark-mode",
      description: null,
      valueType: "boolean",
      defaultValue: false,
      enabled: true,
      rules: [],
      tags: [],
    });
    expect(first.body.id).toMatch(/^flag_/);
    const second = await a.post("/api/flags", {
      key: "checkout.button-copy",
      description: "Copy test",
      valueType: "string",
      defaultValue: "Buy",
      tags: ["checkout", "copy"],
      rules: [
        { type: "force", condition: { country: "FR" }, value: "Acheter" },
        { id: "my-rollout", type: "rollout", value: "Buy now", coverage: 0.25 },
      ],
    });
    expect(second.status).toBe(201);
    const [r0, r1] = second.body.rules;
    expect(r0).toMatchObject({ type: "force", condition: { country: "FR" }, value: "Acheter" });
    expect(r0.id).toMatch(/^r_\w+$/);
    expect(r1).toEqual({ id: "my-rollout", type: "rollout", value: "Buy now", coverage: 0.25 });

    const list = await a.get("/api/flags");
    expect(list.status).toBe(200);
    expect(list.body.map((f: { key: string }) => f.key)).toEqual(["checkout.button-copy", "dark-mode"]);
    const one = await a.get("/api/flags/checkout.button-copy");
    expect(one.body).toEqual(second.body);
  });

  it("PATCH changes any field but key, keeps rule ids, and re-types values with valueType", async () => {
    const a = await t.tenant();
    const created = (
      await a.post("/api/flags", {
        key: "limit",
        valueType: "number",
        defaultValue: 10,
        rules: [{ type: "force", condition: { plan: "pro" }, value: 100 }],
      })
    ).body;
    const ruleId = created.rules[0].id;
    const patched = await a.patch("/api/flags/limit", {
      description: "API limit",
      tags: ["billing"],
      rules: [...created.rules, { type: "force", value: 5 }],
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ description: "API limit", tags: ["billing"], defaultValue: 10 });
    expect(patched.body.rules[0].id).toBe(ruleId);
    expect(patched.body.rules).toHaveLength(2);
    expect(patched.body.updatedAt > created.updatedAt).toBe(true);

    const retyped = await a.patch("/api/flags/limit", {
      valueType: "string",
      defaultValue: "ten",
      rules: [{ id: ruleId, type: "force", value: "hundred" }],
    });
    expect(retyped.status).toBe(200);
    expect(retyped.body).toMatchObject({ valueType: "string", defaultValue: "ten" });
    expect(retyped.body.rules).toEqual([{ id: ruleId, type: "force", value: "hundred" }]);
  });

  it("DELETE answers {id, deleted} and the flag is gone from the API and the payload", async () => {
    const a = await t.tenant();
    const f = (await a.post("/api/flags", { key: "gone", valueType: "json", defaultValue: { a: 1 } })).body;
    expect(Object.keys((await payload(a)).features)).toEqual(["gone"]);
    const del = await a.del("/api/flags/gone");
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: f.id, deleted: true });
    expect((await a.get("/api/flags/gone")).status).toBe(404);
    expect((await payload(a)).features).toEqual({});
  });

  it("lists the flags whose rules use an experiment (the results page's ship button)", async () => {
    const a = await t.tenant();
    const e = (
      await a.post("/api/experiments", {
        name: "Copy",
        targetUrl: "/",
        variants: [{ name: "control" }, { name: "b" }],
      })
    ).body;
    await a.post("/api/flags", { key: "plain", valueType: "boolean", defaultValue: false });
    await a.post("/api/flags", {
      key: "linked",
      valueType: "string",
      defaultValue: "a",
      rules: [{ type: "experiment", experimentId: e.id, variations: ["a", "b"] }],
    });
    const res = await a.get(`/api/flags?experimentId=${e.id}`);
    expect(res.body.map((f: { key: string }) => f.key)).toEqual(["linked"]);
  });
});

describe("GET /api/features/:clientKey (GrowthBook's payload)", () => {
  it("answers {status, features, dateUpdated} with an ETag, 304 to If-None-Match, and the same bytes compressed", async () => {
    const a = await t.tenant();
    await a.post("/api/flags", { key: "f1", valueType: "number", defaultValue: 3 });
    const url = `/api/features/${a.publicKey}`;
    const plain = await t.app.inject({ url });
    expect(plain.statusCode).toBe(200);
    expect(plain.headers["x-sse-support"]).toBe("enabled");
    expect(plain.headers["cache-control"]).toBe("no-cache");
    const body = plain.json();
    expect(Object.keys(body).sort()).toEqual(["dateUpdated", "features", "status"]);
    expect(body).toMatchObject({ status: 200, features: { f1: { defaultValue: 3 } } });
    const etag = String(plain.headers.etag);
    const again = await t.app.inject({ url, headers: { "if-none-match": etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe("");
    const br = await t.app.inject({ url, headers: { "accept-encoding": "br, gzip" } });
    expect(br.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);
    const gz = await t.app.inject({ url, headers: { "accept-encoding": "gzip" } });
    expect(gz.headers["content-encoding"]).toBe("gzip");
    expect(gunzipSync(gz.rawPayload).toString()).toBe(plain.body);
    // A change moves the ETag.
    await a.patch("/api/flags/f1", { defaultValue: 4 });
    expect((await t.app.inject({ url, headers: { "if-none-match": etag } })).statusCode).toBe(200);
  });

  it("moves dateUpdated on every change, a delete and an experiment's change included (SDKs skip an equal one)", async () => {
    const a = await t.tenant();
    const e = (
      await a.post("/api/experiments", {
        name: "E",
        targetUrl: "/",
        variants: [{ name: "a" }, { name: "b" }],
      })
    ).body;
    const seen: string[] = [];
    const note = async () => seen.push((await payload(a)).dateUpdated);
    await a.post("/api/flags", { key: "one", valueType: "boolean", defaultValue: false });
    await note();
    await a.post("/api/flags", {
      key: "two",
      valueType: "boolean",
      defaultValue: false,
      rules: [{ type: "experiment", experimentId: e.id, variations: [false, true] }],
    });
    await note();
    await a.patch("/api/flags/one", { defaultValue: true });
    await note();
    await a.del("/api/flags/one");
    await note();
    await a.patch("/api/experiments", { id: e.id, status: "running" });
    await note();
    for (let i = 1; i < seen.length; i++) expect(seen[i]! > seen[i - 1]!, seen.join(" ")).toBe(true);
  });
});

describe("kill switch", () => {
  it("enabled: false serves the default to everyone at once, and true brings the rules back", async () => {
    const a = await t.tenant();
    await a.post("/api/flags", {
      key: "new-search",
      valueType: "boolean",
      defaultValue: false,
      rules: [{ type: "force", value: true }],
    });
    expect((await a.post("/api/flags/new-search/evaluate", { attributes: { id: "u1" } })).body).toMatchObject(
      {
        value: true,
        source: "force",
      },
    );
    const off = await a.patch("/api/flags/new-search", { enabled: false });
    expect(off.body.enabled).toBe(false);
    // The rules are kept but not served: no SDK can match one.
    expect(off.body.rules).toHaveLength(1);
    expect((await payload(a)).features["new-search"]).toEqual({ defaultValue: false });
    for (const id of ["u1", "u2", "u3"])
      expect((await a.post("/api/flags/new-search/evaluate", { attributes: { id } })).body).toEqual({
        value: false,
        source: "defaultValue",
      });
    await a.patch("/api/flags/new-search", { enabled: true });
    expect((await a.post("/api/flags/new-search/evaluate", { attributes: { id: "u1" } })).body.value).toBe(
      true,
    );
  });
});

describe("history and flag.updated", () => {
  it("keeps every change with who, when, before and after, also after a delete", async () => {
    const a = await t.tenant();
    await a.post("/api/flags", { key: "audited", valueType: "boolean", defaultValue: false });
    await a.patch("/api/flags/audited", { enabled: false }, { as: "admin" });
    await a.del("/api/flags/audited");
    const h = await a.get("/api/flags/audited/history");
    expect(h.status).toBe(200);
    expect(h.body.map((e: { action: string }) => e.action)).toEqual(["deleted", "updated", "created"]);
    const [deleted, updated, created] = h.body;
    expect(created).toMatchObject({ actor: { type: "apiKey" }, before: null, after: { enabled: true } });
    expect(created.actor.id).toMatch(/^key_/);
    expect(updated).toMatchObject({
      actor: { type: "user", id: a.admin.id, email: a.admin.email },
      before: { enabled: true },
      after: { enabled: false },
    });
    expect(deleted).toMatchObject({ before: { enabled: false }, after: null });
    // Newest first, strictly ordered even within one millisecond.
    expect(deleted.at > updated.at && updated.at > created.at).toBe(true);
  });

  it("fires flag.updated for each change, written with it: a refused change writes neither", async () => {
    const a = await t.tenant();
    await a.post("/api/flags", { key: "evented", valueType: "string", defaultValue: "a" });
    await a.patch("/api/flags/evented", { defaultValue: "b" });
    // Refused inside the transaction (the experiment is looked up there): nothing is kept.
    const refused = await a.patch("/api/flags/evented", {
      rules: [{ type: "experiment", experimentId: "exp_missing", variations: ["a", "b"] }],
    });
    expect(refused.status).toBe(400);
    const events = await serviceEvents(a);
    expect(events.map((e) => JSON.parse(e.data).action)).toEqual(["created", "updated"]);
    const data = JSON.parse(events[1]!.data);
    expect(data).toMatchObject({
      key: "evented",
      before: { defaultValue: "a" },
      after: { defaultValue: "b" },
    });
    expect((await a.get("/api/flags/evented/history")).body).toHaveLength(2);
  });
});

describe("flag settings", () => {
  it("remoteEvalOnly refuses the payload (403) and keeps remote evaluation", async () => {
    const a = await t.tenant();
    await a.post("/api/flags", { key: "secret-rules", valueType: "boolean", defaultValue: false });
    const settings = (await a.get("/api/flag-settings")).body;
    expect(settings).toEqual({
      remoteEvalOnly: false,
      targetingSalt: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    const put = await a.put("/api/flag-settings", { remoteEvalOnly: true });
    // the salt is the project's, whatever the setting
    expect(put.body).toEqual({ remoteEvalOnly: true, targetingSalt: settings.targetingSalt });
    const features = await a.get(`/api/features/${a.publicKey}`, { as: "none" });
    expect(features.status).toBe(403);
    expect(features.body).toMatchObject({ code: "FORBIDDEN", status: 403 });
    const evaluated = await a.post(`/api/eval/${a.publicKey}`, { attributes: { id: "u" } }, { as: "none" });
    expect(evaluated.status).toBe(200);
    expect(evaluated.body.features).toEqual({ "secret-rules": { defaultValue: false } });
    await a.put("/api/flag-settings", { remoteEvalOnly: false });
    expect((await a.get(`/api/features/${a.publicKey}`, { as: "none" })).status).toBe(200);
  });
});
