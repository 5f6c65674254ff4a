import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { emitServiceEvent } from "../../platform/jobs/index.js";
import { sendWebhook, trustCaForTests } from "./sender.js";
import { drainUntil, makeSelfSignedCert, startReceiver, subscribedTenant } from "./receiver.testing.js";

let t: TestApp;
const tls = makeSelfSignedCert();
beforeAll(async () => {
  t = await startTestApp({ allowPrivateWebhookTargets: true });
  trustCaForTests(t.config, tls.cert);
});
afterAll(async () => t.close());

type A = Awaited<ReturnType<TestApp["tenant"]>>;
async function deliveries(a: A, id: string, query: Record<string, string> = {}) {
  const res = await a.get(`/api/webhooks/${id}/deliveries`, { query });
  expect(res.status).toBe(200);
  return res.body as { data: any[]; nextCursor: string | null };
}

describe("outgoing deliveries", () => {
  it("fails twice, then succeeds: one successful delivery after 3 signed attempts", async () => {
    const rx = await startReceiver(tls, (n) => ({ status: n <= 2 ? 503 : 204 }));
    try {
      const a = await t.tenant();
      const created = await a.post("/api/webhooks", {
        url: `https://localhost:${rx.port}/hooks?x=1`,
        events: ["lead.created"],
      });
      expect(created.status).toBe(201);
      expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
      expect((await a.get("/api/webhooks")).body[0].secret).toBeUndefined();

      const eventId = await emitServiceEvent(
        t.app.db,
        { workspaceId: a.workspaceId, projectId: a.projectId },
        "lead.created",
        { id: "lead_1", email: "ada@example.com" },
      );
      const done = await drainUntil(
        t.app,
        async () => (await deliveries(a, created.body.id)).data[0]?.status === "succeeded",
      );
      expect(done).toBe(true);

      expect(rx.received).toHaveLength(3);
      const wh = new Webhook(created.body.secret);
      for (const r of rx.received) {
        const body = wh.verify(r.body, r.headers) as Record<string, unknown>;
        expect(body).toMatchObject({
          id: eventId,
          type: "lead.created",
          data: { id: "lead_1", email: "ada@example.com" },
        });
        expect(typeof body.createdAt).toBe("string");
        expect(r.servername).toBe("localhost");
        expect(r.headers.host).toBe(`localhost:${rx.port}`);
      }
      // One message id across retries, so the receiver can deduplicate.
      expect(new Set(rx.received.map((r) => r.headers["webhook-id"])).size).toBe(1);

      const log = await deliveries(a, created.body.id);
      expect(log.data).toHaveLength(1);
      expect(log.data[0]).toMatchObject({
        eventId,
        eventType: "lead.created",
        status: "succeeded",
        attemptCount: 3,
      });
      expect(log.data[0].attempts.map((x: any) => [x.attempt, x.statusCode, x.succeeded])).toEqual([
        [1, 503, false],
        [2, 503, false],
        [3, 204, true],
      ]);
      expect(log.data[0].attempts[0].error).toBe("HTTP 503");
      // The second wait is the schedule's 300 s step × retryScale 0.001.
      const [, second, third] = log.data[0].attempts.map((x: any) => Date.parse(x.createdAt));
      expect(third - second).toBeGreaterThanOrEqual(290);
      expect(
        log.data[0].attempts.every((x: any) => Number.isInteger(x.durationMs) && x.durationMs >= 0),
      ).toBe(true);
    } finally {
      await rx.close();
    }
  });

  it("delivers only subscribed types, once per event even if the dispatch runs twice", async () => {
    const rx = await startReceiver(tls, () => ({ status: 200 }));
    try {
      const { a, wh, emit } = await subscribedTenant(t, rx.port, ["goal.reached"]);
      await emit("lead.created");
      const evt = await emit("goal.reached", { goalId: "g1" });
      await t.app.worker.drain();
      // A second run of the dispatch (at-least-once) must not create a second delivery.
      const { fanOut } = await import("./delivery.js");
      const row = await t.app.db
        .selectFrom("service_events")
        .selectAll()
        .where("id", "=", evt)
        .executeTakeFirstOrThrow();
      await fanOut(t.app.db, {
        ...row,
        workspaceId: row.workspace_id,
        projectId: row.project_id,
        type: "goal.reached",
        data: {},
        createdAt: row.created_at,
      });
      await t.app.worker.drain();
      const log = await deliveries(a, wh.body.id);
      expect(log.data.map((d) => d.eventType)).toEqual(["goal.reached"]);
      expect(rx.received).toHaveLength(1);
    } finally {
      await rx.close();
    }
  });

  it("410 Gone disables the endpoint at once", async () => {
    const rx = await startReceiver(tls, () => ({ status: 410 }));
    try {
      const { a, wh, emit } = await subscribedTenant(t, rx.port, ["lead.updated"]);
      await emit("lead.updated");
      await t.app.worker.drain();
      const [ep] = (await a.get("/api/webhooks")).body;
      expect(ep).toMatchObject({ status: "disabled", disabledReason: expect.stringMatching(/410/) });
      const log = await deliveries(a, wh.body.id);
      expect(log.data[0]).toMatchObject({ status: "failed", attemptCount: 1 });
      expect(rx.received).toHaveLength(1);
      // Re-enabled by PATCH, and a manual retry re-sends.
      const patched = await a.patch("/api/webhooks", {
        id: wh.body.id,
        status: "active",
        events: ["lead.updated", "lead.created"],
      });
      expect(patched.body).toMatchObject({
        status: "active",
        disabledReason: null,
        events: ["lead.updated", "lead.created"],
      });
      const retry = await a.post(`/api/webhooks/${wh.body.id}/deliveries/${log.data[0].id}/retry`);
      expect(retry.status).toBe(202);
      await t.app.worker.drain();
      expect(rx.received).toHaveLength(2);
      expect((await deliveries(a, wh.body.id)).data[0].attemptCount).toBe(2);
    } finally {
      await rx.close();
    }
  });

  it("a 3xx is a failure and is not followed", async () => {
    const rx = await startReceiver(tls, (n) =>
      n === 1 ? { status: 302, headers: { location: "https://127.0.0.1:1/elsewhere" } } : { status: 200 },
    );
    try {
      const { a, wh, emit } = await subscribedTenant(t, rx.port, ["lead.created"]);
      await emit("lead.created");
      expect(
        await drainUntil(
          t.app,
          async () => (await deliveries(a, wh.body.id)).data[0]?.status === "succeeded",
        ),
      ).toBe(true);
      const attempts = (await deliveries(a, wh.body.id)).data[0].attempts;
      expect(attempts[0]).toMatchObject({
        statusCode: 302,
        succeeded: false,
        error: "redirect 302 not followed",
      });
      expect(rx.received).toHaveLength(2);
    } finally {
      await rx.close();
    }
  });

  it("waits for a Retry-After longer than the next step", async () => {
    // 5 s is the first step; Retry-After 120 s (scaled by 0.001 → 120 ms) must win.
    const rx = await startReceiver(tls, (n) =>
      n === 1 ? { status: 429, headers: { "retry-after": "120" } } : { status: 200 },
    );
    try {
      const { a, wh, emit } = await subscribedTenant(t, rx.port, ["lead.created"]);
      await emit("lead.created");
      await t.app.worker.drain();
      const firstAt = Date.now();
      expect(await drainUntil(t.app, async () => rx.received.length === 2)).toBe(true);
      expect(Date.now() - firstAt).toBeGreaterThanOrEqual(100);
      expect((await deliveries(a, wh.body.id)).data[0].status).toBe("succeeded");
    } finally {
      await rx.close();
    }
  });

  it("paginates the log newest first with limit and cursor", async () => {
    const rx = await startReceiver(tls, () => ({ status: 200 }));
    try {
      const { a, wh, emit } = await subscribedTenant(t, rx.port, ["lead.created"]);
      for (let i = 0; i < 3; i++) {
        await emit("lead.created", { i });
        await t.app.worker.drain();
      }
      const p1 = await deliveries(a, wh.body.id, { limit: "2" });
      expect(p1.data).toHaveLength(2);
      expect(p1.nextCursor).toEqual(expect.any(String));
      const p2 = await deliveries(a, wh.body.id, { limit: "2", cursor: p1.nextCursor! });
      expect(p2.data).toHaveLength(1);
      expect(p2.nextCursor).toBeNull();
      const all = [...p1.data, ...p2.data];
      expect(new Set(all.map((d) => d.id)).size).toBe(3);
      const times = all.map((d) => d.createdAt);
      expect([...times].sort().reverse()).toEqual(times);
      expect(
        (await a.get(`/api/webhooks/${wh.body.id}/deliveries`, { query: { cursor: "garbage" } })).status,
      ).toBe(400);
    } finally {
      await rx.close();
    }
  });
});

describe("the delivery client", () => {
  it("dials the vetted address while TLS and Host use the hostname", async () => {
    const rx = await startReceiver(tls, () => ({ status: 200 }));
    try {
      // pinned.example.test does not resolve: the request can only succeed through the pinned address.
      const url = new URL(`https://pinned.example.test:${rx.port}/p`);
      const res = await sendWebhook(
        t.config,
        { url, hostname: url.hostname, port: rx.port, address: "127.0.0.1", family: 4 },
        {},
        "{}",
      );
      expect(res).toMatchObject({ statusCode: 200, error: null });
      expect(rx.received[0]).toMatchObject({ servername: "pinned.example.test" });
      expect(rx.received[0]!.headers.host).toBe(`pinned.example.test:${rx.port}`);
    } finally {
      await rx.close();
    }
  });

  it("gives up on a receiver that does not answer in time", async () => {
    const rx = await startReceiver(tls, () => ({ status: 200 }));
    const silent = await import("node:https").then((https) =>
      https.createServer(tls, () => {
        /* never answers */
      }),
    );
    await new Promise<void>((r) => silent.listen(0, "127.0.0.1", r));
    try {
      const port = (silent.address() as { port: number }).port;
      const url = new URL(`https://localhost:${port}/`);
      const res = await sendWebhook(
        t.config,
        { url, hostname: "localhost", port, address: "127.0.0.1", family: 4 },
        {},
        "{}",
        150,
      );
      expect(res).toMatchObject({ statusCode: null, error: "timed out after 150 ms" });
      expect(res.durationMs).toBeGreaterThanOrEqual(140);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((r) => silent.close(() => r()));
      await rx.close();
    }
  });

  it("refuses a certificate it was not told to trust", async () => {
    const other = await startTestApp({ allowPrivateWebhookTargets: true });
    const rx = await startReceiver(tls, () => ({ status: 200 }));
    try {
      const url = new URL(`https://localhost:${rx.port}/`);
      const res = await sendWebhook(
        other.config,
        { url, hostname: "localhost", port: rx.port, address: "127.0.0.1", family: 4 },
        {},
        "{}",
      );
      expect(res.statusCode).toBeNull();
      expect(res.error).toMatch(/certificate/i);
      expect(rx.received).toHaveLength(0);
    } finally {
      await rx.close();
      await other.close();
    }
  });
});
