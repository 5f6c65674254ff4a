import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { emitServiceEvent } from "../../platform/jobs/index.js";
import { upsertLeadByEmail } from "../identity/service.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ allowPrivateWebhookTargets: true });
});
afterAll(async () => t.close());

const url = "https://93.184.215.14/hooks/lift";

describe("GET/POST/PATCH/DELETE /api/webhooks", () => {
  it("creates with a generated whsec_ secret shown once, lists, patches and deletes", async () => {
    const a = await t.tenant();
    const created = await a.post("/api/webhooks", { url, events: ["lead.created", "goal.reached"] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ url, events: ["lead.created", "goal.reached"], status: "active" });
    expect(Buffer.from(created.body.secret.slice(6), "base64").length).toBeGreaterThanOrEqual(24);
    expect(Number.isNaN(Date.parse(created.body.createdAt))).toBe(false);

    const list = await a.get("/api/webhooks");
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).not.toHaveProperty("secret");
    // Stored encrypted, never in clear.
    const row = await t.app.db
      .selectFrom("webhook_endpoints")
      .selectAll()
      .where("id", "=", created.body.id)
      .executeTakeFirstOrThrow();
    expect(row.secret_sealed).not.toContain(created.body.secret.slice(6));
    expect(t.app.secrets.decrypt(row.secret_sealed)).toBe(created.body.secret);

    const patched = await a.patch("/api/webhooks", {
      id: created.body.id,
      events: ["connector.error"],
      status: "disabled",
    });
    expect(patched.body).toMatchObject({ events: ["connector.error"], status: "disabled" });
    const del = await a.del("/api/webhooks", { id: created.body.id });
    expect(del.body).toEqual({ id: created.body.id, deleted: true });
    expect((await a.get("/api/webhooks")).body).toEqual([]);
    expect((await a.del("/api/webhooks", { id: created.body.id })).status).toBe(404);
  });

  it("keeps a caller-supplied whsec_ secret and refuses one in another format", async () => {
    const a = await t.tenant();
    const secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
    expect((await a.post("/api/webhooks", { url, events: ["lead.created"], secret })).body.secret).toBe(
      secret,
    );
    for (const bad of ["hunter2", "whsec_short", "whsec_!!!not-base64!!!"]) {
      const res = await a.post("/api/webhooks", { url, events: ["lead.created"], secret: bad });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(/secret/);
    }
  });

  it("400 for empty, unknown or missing events and a missing url", async () => {
    const a = await t.tenant();
    for (const body of [
      { url, events: [] },
      { url, events: ["lead.deleted"] },
      { url },
      { events: ["lead.created"] },
    ]) {
      const res = await a.post("/api/webhooks", body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
    }
  });

  it("another project's webhook is 404 everywhere; no credentials is 401", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    const wh = await a.post("/api/webhooks", { url, events: ["lead.created"] });
    expect((await b.patch("/api/webhooks", { id: wh.body.id, status: "active" })).status).toBe(404);
    expect((await b.del("/api/webhooks", { id: wh.body.id })).status).toBe(404);
    expect((await b.get(`/api/webhooks/${wh.body.id}/deliveries`)).status).toBe(404);
    expect((await b.post(`/api/webhooks/${wh.body.id}/deliveries/msg_x/retry`)).status).toBe(404);
    expect((await b.get("/api/webhooks")).body).toEqual([]);
    expect((await a.get("/api/webhooks", { as: "none" })).status).toBe(401);
    expect((await a.post("/api/webhooks", { url, events: ["lead.created"] }, { as: "none" })).status).toBe(
      401,
    );
    // A dashboard session acts on the workspace's project too.
    expect((await a.get("/api/webhooks", { as: "member" })).body).toHaveLength(1);
  });

  it("a retry of a delivery of a disabled endpoint is 409", async () => {
    const a = await t.tenant();
    const wh = await a.post("/api/webhooks", { url: "https://127.0.0.1:1/", events: ["lead.created"] });
    await emitServiceEvent(
      t.app.db,
      { workspaceId: a.workspaceId, projectId: a.projectId },
      "lead.created",
      {},
    );
    await t.app.worker.drain();
    const [delivery] = (await a.get(`/api/webhooks/${wh.body.id}/deliveries`)).body.data;
    expect(delivery.attempts[0]).toMatchObject({ succeeded: false, statusCode: null });
    await a.patch("/api/webhooks", { id: wh.body.id, status: "disabled" });
    const res = await a.post(`/api/webhooks/${wh.body.id}/deliveries/${delivery.id}/retry`);
    expect(res.status).toBe(409);
    await a.patch("/api/webhooks", { id: wh.body.id, status: "active" });
    expect((await a.post(`/api/webhooks/${wh.body.id}/deliveries/msg_nope/retry`)).status).toBe(404);
  });
});

describe("emission points", () => {
  it("a lead created through identity produces a lead.created delivery", async () => {
    const a = await t.tenant();
    const wh = await a.post("/api/webhooks", {
      url: "https://127.0.0.1:1/",
      events: ["lead.created", "lead.updated"],
    });
    const project = { id: a.projectId, workspaceId: a.workspaceId };
    await upsertLeadByEmail(t.app.deps, project, { email: "new@example.com", source: "test" });
    await upsertLeadByEmail(t.app.deps, project, {
      email: "new@example.com",
      name: "New Person",
      source: "test",
    });
    await t.app.worker.drain();
    const types = (await a.get(`/api/webhooks/${wh.body.id}/deliveries`)).body.data.map(
      (d: any) => d.eventType,
    );
    expect(types.sort()).toEqual(["lead.created", "lead.updated"]);
  });
});
