import type { FastifyInstance } from "fastify";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../app.js";
import { trustCaForTests } from "../webhooks/sender.js";
import { drainUntil, makeSelfSignedCert, startReceiver } from "../webhooks/receiver.testing.js";
import { type TestApp, type Tenant, startTestApp } from "../../../test/helpers/app.js";
import { startGoogleAdsFake } from "../../../test/fakes/google-ads.js";
import { startHubspotFake } from "../../../test/fakes/hubspot.js";
import { type FakePlatform, consent } from "../../../test/fakes/server.js";
import { STRIPE_KEY, startStripeFake } from "../../../test/fakes/stripe.js";
import { connectOAuth, platformConfig } from "./connectors.testing.js";

let t: TestApp;
let gads: FakePlatform;
let stripe: FakePlatform;
let hubspot: FakePlatform;
const gadsClient = { id: "gads-client", secret: "gads-secret-value" };
const hsClient = { id: "hs-client", secret: "hs-secret-value" };
const tls = makeSelfSignedCert();

beforeAll(async () => {
  gads = await startGoogleAdsFake(gadsClient);
  stripe = await startStripeFake();
  hubspot = await startHubspotFake(hsClient);
  t = await startTestApp({
    ...platformConfig([
      ["search_ads", gads, gadsClient],
      ["payments", stripe],
      ["crm", hubspot, hsClient],
    ]),
    allowPrivateWebhookTargets: true,
  });
  trustCaForTests(t.config, tls.cert);
});
afterAll(async () => {
  await t.close();
  for (const f of [gads, stripe, hubspot]) await f.close();
});

const sync = async (a: Tenant) => {
  const s = await a.get("/api/sync/run");
  await t.app.worker.drain();
  return s.body as { syncId: string; connectors: string[] };
};

describe("GET/POST/DELETE /api/connectors", () => {
  it("POST refuses OAuth-only types and unknown types with 400", async () => {
    const a = await t.tenant();
    const oauthOnly = await a.post("/api/connectors", { type: "search_ads", credentials: { token: "x" } });
    expect(oauthOnly.status).toBe(400);
    expect(oauthOnly.body.error).toBe(
      "search_ads connects through OAuth: open GET /api/connectors/search_ads/auth in the browser",
    );
    const unknown = await a.post("/api/connectors", { type: "fax", credentials: {} });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
    expect(unknown.body.error).toMatch(/type/);
  });

  it("DELETE revokes at the platform, removes the connector and its rows; unknown → 404", async () => {
    const a = await t.tenant();
    await connectOAuth(a, "search_ads", gads);
    await sync(a);
    expect((await a.get("/api/metrics/search_ads?period=7d")).body.spend).toBe(50);
    const before = gads.revoked.length;
    const del = await a.del("/api/connectors", { type: "search_ads" });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({
      id: expect.stringMatching(/^con_/),
      type: "search_ads",
      deleted: true,
      revoked: true,
    });
    expect(gads.revoked.length).toBe(before + 1);
    expect((await a.get("/api/connectors")).body).toEqual([]);
    expect((await a.get("/api/metrics/search_ads")).status).toBe(404);
    expect((await a.del("/api/connectors", { type: "search_ads" })).status).toBe(404);
  });

  it("DELETE of a HubSpot OAuth grant revokes its refresh token; an API key connector just forgets it", async () => {
    const a = await t.tenant();
    await connectOAuth(a, "crm", hubspot);
    const del = await a.del("/api/connectors", { type: "crm" });
    expect(del.body.revoked).toBe(true);
    expect(hubspot.calls(/^\/oauth\/v1\/refresh-tokens\//)).toHaveLength(1);
    await a.post("/api/connectors", { type: "payments", credentials: { apiKey: STRIPE_KEY } });
    const pay = await a.del("/api/connectors", { type: "payments" });
    expect(pay.body).toMatchObject({ deleted: true, revoked: false });
  });

  it("another project's connectors, syncs and metrics are not visible", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    await a.post("/api/connectors", { type: "payments", credentials: { apiKey: STRIPE_KEY } });
    const s = await sync(a);
    expect((await b.get("/api/connectors")).body).toEqual([]);
    expect((await b.get(`/api/sync/${s.syncId}`)).status).toBe(404);
    expect((await b.get("/api/metrics/payments")).status).toBe(404);
    expect((await b.get("/api/metrics")).body.connectors).toEqual([]);
    expect((await b.get("/api/metrics/payments?period=1y")).status).toBe(400);
  });
});

describe("sync runs", () => {
  it("returns at once, shows progress per connector, and never overlaps one connector", async () => {
    const a = await t.tenant();
    await a.post("/api/connectors", { type: "payments", credentials: { apiKey: STRIPE_KEY } });
    await connectOAuth(a, "search_ads", gads);
    const first = (await a.get("/api/sync/run")).body;
    expect(first).toEqual({
      status: "started",
      syncId: expect.any(String),
      connectors: ["payments", "search_ads"],
    });
    const queued = (await a.get(`/api/sync/${first.syncId}`)).body;
    expect(queued.status).toBe("running");
    expect(queued.connectors.map((c: { status: string }) => c.status)).toEqual(["queued", "queued"]);
    const second = (await a.get("/api/sync/run")).body;
    const overlapped = (await a.get(`/api/sync/${second.syncId}`)).body;
    expect(overlapped.connectors.map((c: { status: string }) => c.status)).toEqual([
      "already_running",
      "already_running",
    ]);
    await t.app.worker.drain();
    const done = (await a.get(`/api/sync/${first.syncId}`)).body;
    expect(done).toMatchObject({
      status: "completed",
      connectors: [
        { type: "payments", status: "done", rows: 3, error: null },
        { type: "search_ads", status: "done", rows: 4, error: null },
      ],
    });
    const jobs = await t.app.db
      .selectFrom("jobs")
      .select("id")
      .where("type", "=", "connectors.sync")
      .where("payload", "like", `%${second.syncId}%`)
      .execute();
    expect(jobs).toHaveLength(0);
  });

  it("the scheduled sync enqueues every project's connectors", async () => {
    const a = await t.tenant();
    await a.post("/api/connectors", { type: "payments", credentials: { apiKey: STRIPE_KEY } });
    const { enqueueJob } = await import("../../platform/jobs/index.js");
    const { SYNC_ALL_JOB } = await import("./schema.js");
    await enqueueJob(t.app.db, SYNC_ALL_JOB, {});
    await t.app.worker.drain();
    expect((await a.get("/api/connectors")).body[0].lastSync).toEqual(expect.any(String));
    const sync = await t.app.db
      .selectFrom("connector_syncs")
      .selectAll()
      .where("project_id", "=", a.projectId)
      .executeTakeFirstOrThrow();
    expect((await a.get(`/api/sync/${sync.id}`)).body).toMatchObject({
      trigger: "schedule",
      status: "completed",
      connectors: [{ type: "payments", status: "done" }],
    });
  });

  it("a sync with nothing connected still has a progress record; unknown sync ids are 404", async () => {
    const a = await t.tenant();
    const s = await a.get("/api/sync/run");
    expect(s.body).toEqual({ status: "started", syncId: expect.any(String), connectors: [] });
    expect((await a.get(`/api/sync/${s.body.syncId}`)).body).toEqual({
      syncId: s.body.syncId,
      status: "completed",
      trigger: "manual",
      createdAt: expect.any(String),
      connectors: [],
    });
    expect((await a.get("/api/sync/sync_nope")).status).toBe(404);
  });

  it("the connector routes are in the OpenAPI document", async () => {
    const res = await t.app.inject({ method: "GET", url: "/openapi.json" });
    const paths = Object.keys(JSON.parse(res.body).paths);
    for (const p of [
      "/api/connectors",
      "/api/connectors/{type}/auth",
      "/api/sync/run",
      "/api/metrics/{connectorType}",
    ]) {
      expect(paths).toContain(p);
    }
  });

  it("a failing platform → status error and connector.error delivered to a webhook subscriber", async () => {
    const rx = await startReceiver(tls, () => ({ status: 204 }));
    try {
      const a = await t.tenant();
      const hook = await a.post("/api/webhooks", {
        url: `https://127.0.0.1:${rx.port}/hook`,
        events: ["connector.error"],
      });
      expect(hook.status).toBe(201);
      await a.post("/api/connectors", { type: "payments", credentials: { apiKey: STRIPE_KEY } });
      stripe.failWith = {
        status: 500,
        body: { error: { message: "An unknown error occurred", type: "api_error" } },
      };
      let s: { syncId: string };
      try {
        s = await sync(a);
      } finally {
        stripe.failWith = null;
      }
      const list = (await a.get("/api/connectors")).body;
      expect(list[0]).toMatchObject({ status: "error", lastError: "An unknown error occurred" });
      expect((await a.get(`/api/sync/${s.syncId}`)).body).toMatchObject({
        status: "completed_with_errors",
        connectors: [{ type: "payments", status: "error", error: "An unknown error occurred" }],
      });
      expect(await drainUntil(t.app, async () => rx.received.length >= 1)).toBe(true);
      const body = new Webhook(hook.body.secret).verify(rx.received[0]!.body, rx.received[0]!.headers) as {
        type: string;
        data: Record<string, unknown>;
      };
      expect(body.type).toBe("connector.error");
      expect(body.data).toMatchObject({
        type: "payments",
        syncId: s.syncId,
        status: "error",
        error: "An unknown error occurred",
      });
      // The next successful sync clears the error.
      await sync(a);
      expect((await a.get("/api/connectors")).body[0]).toMatchObject({
        status: "connected",
        lastError: null,
      });
    } finally {
      await rx.close();
    }
  });
});

describe("credentials never leak", () => {
  let logged: FastifyInstance;
  const lines: string[] = [];

  beforeAll(async () => {
    // A second app on the same database with a trace-level logger whose lines we keep.
    logged = await buildApp(t.config, {
      handle: t.app.dbHandle,
      logger: { level: "trace", stream: { write: (l: string) => void lines.push(l) } },
    });
    await logged.ready();
  });
  afterAll(async () => logged.close()); // again: a failed test may not have closed it

  it("encrypted at rest; absent from every response and log line", async () => {
    const a = await t.tenant();
    const responses: string[] = [];
    const call = async (
      method: "GET" | "POST" | "DELETE",
      url: string,
      body?: unknown,
      as: "key" | "admin" | "none" = "key",
    ) => {
      const res = await logged.inject({
        method,
        url,
        headers: { ...(await a.headersFor(as)), ...(body ? { "content-type": "application/json" } : {}) },
        payload: body ? JSON.stringify(body) : undefined,
      });
      responses.push(res.body, JSON.stringify(res.headers));
      return res;
    };
    expect(
      (await call("POST", "/api/connectors", { type: "payments", credentials: { apiKey: STRIPE_KEY } }))
        .statusCode,
    ).toBe(201);
    const auth = await call("GET", "/api/connectors/search_ads/auth", undefined, "admin");
    const { code, state } = consent(gads, String(auth.headers.location));
    const cb = await call(
      "GET",
      `/api/connectors/search_ads/callback?code=${code}&state=${state}`,
      undefined,
      "admin",
    );
    expect(cb.headers.location).toBe("http://localhost:3000/integrations?connected=search_ads");
    gads.expireAccessTokens(); // forces a refresh: new tokens travel through the sync
    await call("GET", "/api/sync/run");
    await logged.worker.drain();
    await call("GET", "/api/connectors");
    await call("GET", "/api/metrics");
    await call("DELETE", "/api/connectors", { type: "search_ads" });

    const secrets = [
      STRIPE_KEY,
      gadsClient.secret,
      ...gads.accessTokens.keys(),
      ...gads.refreshTokens,
      ...gads.revoked,
    ];
    expect(secrets.length).toBeGreaterThan(4);
    const raw = await t.app.db
      .selectFrom("connectors")
      .selectAll()
      .where("project_id", "=", a.projectId)
      .execute();
    expect(raw).toHaveLength(1);
    expect(raw[0]!.credentials).toMatch(/^v1\./);
    const rawText = JSON.stringify(raw);
    await logged.close(); // writes the summary of the successful requests
    const logText = lines.join("");
    // The log is there: successes in the summary (the callback among them), refusals line by line.
    expect(logText).toContain('"GET /api/connectors/:type/callback 3xx"');
    for (const s of secrets) {
      expect(rawText).not.toContain(s);
      expect(logText).not.toContain(s);
      for (const r of responses) expect(r).not.toContain(s);
    }
  });
});
