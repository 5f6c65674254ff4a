import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../../test/helpers/app.js";
import { startSmtpPeer, txTenant } from "./email.testing.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const SBX = "user@sandbox.svc.test";
const txError = (code: string) => ({
  error: { code, message: expect.any(String), requestId: expect.any(String) },
});

describe("the transactional error table", () => {
  it("400 validation_error: commId and inline fields both provided", async () => {
    const a = await txTenant(t);
    const res = await a.send({ to: SBX, commId: "welcome", subject: "hi", text: "x" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(txError("validation_error"));
  });

  it("400 comm_type_mismatch: a marketing communication", async () => {
    const a = await txTenant(t);
    const created = await a.post(
      "/api/communications",
      {
        id: "promo",
        name: "Promo",
        commType: "marketing",
        slots: { subject: "Sale" },
        blocks: [{ type: "text", text: "50% off" }],
      },
      { as: "admin" },
    );
    expect(created.status).toBe(201);
    const res = await a.send({ to: SBX, commId: "promo" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual(txError("comm_type_mismatch"));
  });

  it("400 missing_variables: strict lists every missing key, sorted", async () => {
    const a = await txTenant(t);
    const res = await a.send({ to: SBX, commId: "invite", variables: { orgName: "Acme" }, strict: true });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: {
        code: "missing_variables",
        message: expect.any(String),
        missing: ["acceptUrl", "inviterName", "role"],
        requestId: expect.any(String),
      },
    });
  });

  it("401 unauthorized: missing, malformed, unknown, and non-svc_tx credentials", async () => {
    const a = await txTenant(t);
    const cases: Array<Record<string, string>> = [
      {},
      { authorization: "Bearer svc_tx_doesnotexist" },
      { authorization: "Basic dXNlcjpwYXNz" },
      { "x-api-key": a.apiKey },
      { authorization: `Bearer ${a.apiKey}` },
      { "x-api-key": "svc_tx_" },
    ];
    for (const headers of cases) {
      const res = await a.post(
        "/api/v1/transactional/send",
        { to: SBX, subject: "s", text: "t" },
        { as: "none", headers },
      );
      expect(res.status).toBe(401);
      expect(res.body).toEqual(txError("unauthorized"));
    }
    // credentials are checked before the body: a bad body without a key is still 401
    const res = await a.post("/api/v1/transactional/send", "{oops", { as: "none" });
    expect(res.status).toBe(401);
  });

  it("404 comm_not_found, also for another workspace's communication", async () => {
    const a = await txTenant(t);
    const b = await txTenant(t);
    await b.post(
      "/api/communications",
      {
        id: "mine",
        name: "Mine",
        commType: "transactional",
        slots: { subject: "S" },
        blocks: [{ type: "text", text: "x" }],
      },
      { as: "admin" },
    );
    expect(await a.send({ to: SBX, commId: "nope" })).toMatchObject({
      status: 404,
      body: txError("comm_not_found"),
    });
    expect(await a.send({ to: SBX, commId: "mine" })).toMatchObject({
      status: 404,
      body: txError("comm_not_found"),
    });
    expect((await b.send({ to: SBX, commId: "mine" })).status).toBe(200);
  });

  it("409 idempotency_key_mismatch and 409 idempotency_in_flight", async () => {
    const a = await txTenant(t);
    expect((await a.send({ to: SBX, subject: "a", text: "a" }, { "idempotency-key": "k" })).status).toBe(200);
    const mismatch = await a.send({ to: SBX, subject: "b", text: "b" }, { "idempotency-key": "k" });
    expect(mismatch).toMatchObject({ status: 409, body: txError("idempotency_key_mismatch") });
    const { requestHash } = await import("./idempotency.js");
    const body = { to: SBX, subject: "c", text: "c" };
    await t.app.db
      .insertInto("tx_idempotency")
      .values({
        workspace_id: a.workspaceId,
        idem_key: "busy",
        request_hash: requestHash(body, true),
        state: "in_flight",
        locked_until: Date.now() + 60_000,
        send_id: null,
        response_status: null,
        response_body: null,
        expires_at: Date.now() + 3_600_000,
        created_at: Date.now(),
      })
      .execute();
    expect(await a.send(body, { "idempotency-key": "busy" })).toMatchObject({
      status: 409,
      body: txError("idempotency_in_flight"),
    });
  });

  it("422 bounce, 422 suppressed (sandbox) and 422 send_failed", async () => {
    const a = await txTenant(t);
    expect(await a.send({ to: "will-bounce@sandbox.svc.test", subject: "s", text: "t" })).toMatchObject({
      status: 422,
      body: txError("bounce"),
    });
    expect(
      await a.send({ to: "suppress-me@example.com", subject: "s", text: "t" }, { "x-svc-mode": "sandbox" }),
    ).toMatchObject({
      status: 422,
      body: txError("suppressed"),
    });
    // send_failed: a real SMTP peer refusing the message permanently
    const peer = await startSmtpPeer();
    peer.onData = () => ({ code: 554, message: "5.7.1 rejected by policy" });
    const smtpApp = await startTestApp({ smtpUrl: peer.url });
    try {
      const b = await txTenant(smtpApp);
      const res = await b.send({ to: "x@example.com", subject: "s", text: "t" });
      expect(res).toMatchObject({ status: 422, body: txError("send_failed") });
      expect(res.body.error.message).toContain("5.7.1 rejected by policy");
      // a 4xx that persists through the in-request attempts is transient: queued for the delivery job
      peer.onData = () => ({ code: 451, message: "4.3.0 try later" });
      const queued = await b.send({ to: "y@example.com", subject: "s", text: "t" });
      expect(queued.status).toBe(200);
      expect(queued.body.status).toBe("queued");
    } finally {
      await smtpApp.close();
      await peer.close();
    }
  });

  it("429 rate_limited with Retry-After; X-RateLimit-* on every response", async () => {
    const a = await txTenant(t, { tier: "free" });
    let last = await a.send({ to: SBX, subject: "s", text: "t" });
    expect(last.headers["x-ratelimit-limit"]).toBe("60");
    expect(last.headers["x-ratelimit-remaining"]).toBe("59");
    expect(Number(last.headers["x-ratelimit-reset"])).toBeGreaterThan(0);
    for (let i = 0; i < 59; i++) last = await a.send({ to: SBX, subject: "s", text: "t" });
    expect(last.status).toBe(200);
    const limited = await a.send({ to: SBX, subject: "s", text: "t" });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual(txError("rate_limited"));
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    expect(limited.headers["x-ratelimit-remaining"]).toBe("0");
    // the limit is per key: a second key of the same workspace has its own budget
    const k2 = await a.post("/api/transactional-api-keys", { name: "second" }, { as: "admin" });
    const other = await a.post(
      "/api/v1/transactional/send",
      { to: SBX, subject: "s", text: "t" },
      { as: "none", headers: { "x-api-key": k2.body.rawKey } },
    );
    expect(other.status).toBe(200);
  });

  it("tier limits follow the workspace plan", async () => {
    for (const [tier, limit] of [
      ["starter", "300"],
      ["pro", "1200"],
      ["growth", "3000"],
      ["scale", "12000"],
    ] as const) {
      const a = await txTenant(t, { tier });
      const res = await a.send({ to: SBX, subject: "s", text: "t" });
      expect(res.headers["x-ratelimit-limit"]).toBe(limit);
    }
  });
});

describe("request validation (all 400 validation_error in the transactional format)", () => {
  const cases: Array<[string, unknown]> = [
    ["neither html nor text", { to: SBX, subject: "s" }],
    ["empty html and text", { to: SBX, subject: "s", html: "", text: "" }],
    ["no subject, no commId", { to: SBX, text: "t" }],
    ["invalid email", { to: "not-an-email", subject: "s", text: "t" }],
    ["two @", { to: "a@b@c.io", subject: "s", text: "t" }],
    ["missing to", { subject: "s", text: "t" }],
    ["subject with CR/LF", { to: SBX, subject: "hi\r\nBcc: victim@example.com", text: "t" }],
    ["subject with LF", { to: SBX, subject: "hi\nX: y", text: "t" }],
    ["tags not flat", { to: SBX, subject: "s", text: "t", tags: { a: { b: "c" } } }],
    ["tags with an array value", { to: SBX, subject: "s", text: "t", tags: { a: [1] } }],
    ["tags an array", { to: SBX, subject: "s", text: "t", tags: ["a"] }],
    ["variables with inline", { to: SBX, subject: "s", text: "t", variables: { a: "b" } }],
    ["variables an array value", { to: SBX, commId: "welcome", variables: { a: [1] } }],
    ["variables null value", { to: SBX, commId: "welcome", variables: { a: null } }],
    ["strict not boolean", { to: SBX, commId: "welcome", strict: "yes" }],
    ["commId not a string", { to: SBX, commId: 5 }],
    ["unknown field", { to: SBX, subject: "s", text: "t", from: "x@y.io" }],
    ["body an array", [1, 2]],
    ["html not a string", { to: SBX, subject: "s", html: 5 }],
  ];
  let a: Awaited<ReturnType<typeof txTenant>>;
  beforeAll(async () => {
    a = await txTenant(t);
  });
  it.each(cases)("%s", async (_name, body) => {
    const res = await a.send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual(txError("validation_error"));
  });

  it("malformed JSON is 400, a non-JSON content type 415, both in the transactional format", async () => {
    const bad = await a.send("{not json");
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(txError("validation_error"));
    // the limit headers are on error responses too, once the key is known
    expect(bad.headers["x-ratelimit-limit"]).toBe("12000");
    expect(bad.headers["x-ratelimit-remaining"]).toBeDefined();
    const form = await a.send("to=x", { "content-type": "application/x-www-form-urlencoded" });
    expect(form.status).toBe(415);
    expect(form.body).toEqual(txError("validation_error"));
    const mode = await a.send({ to: SBX, subject: "s", text: "t" }, { "x-svc-mode": "chaos" });
    expect(mode.status).toBe(400);
  });
});

describe("sandbox", () => {
  it("X-Svc-Mode: sandbox or the sandbox domain → sbx_ message id, a record tagged sandbox, nothing delivered", async () => {
    const a = await txTenant(t);
    const res = await a.send(
      { to: "someone@example.com", subject: "s", text: "t", tags: { env: "ci" } },
      { "x-svc-mode": "sandbox" },
    );
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      send_id: expect.any(String),
      message_id: expect.stringMatching(/^sbx_/),
      status: "sent",
      sandbox: true,
    });
    const upper = await a.send(
      { to: "someone@example.com", subject: "s", text: "t" },
      { "x-svc-mode": "Sandbox" },
    );
    expect(upper.body.sandbox).toBe(true);
    const byDomain = await a.send({ to: "Someone@SANDBOX.svc.test", subject: "s", text: "t" });
    expect(byDomain.body.sandbox).toBe(true);
    const recent = await a.get("/api/transactional/recent", { as: "admin" });
    expect(recent.body).toHaveLength(3);
    expect(recent.body.every((r: { sandbox: boolean }) => r.sandbox)).toBe(true);
    expect(recent.body.find((r: { id: string }) => r.id === res.body.send_id).tags).toEqual({
      env: "ci",
      sandbox: true,
    });
    const { existsSync } = await import("node:fs");
    expect(existsSync(`${t.config.dataDir}/outbox`)).toBe(false);
  });

  it("without SMTP_URL a live send writes an .eml file under data/outbox", async () => {
    const a = await txTenant(t);
    const res = await a.send({ to: "real@example.com", subject: "Outbox", text: "hello" });
    expect(res.status).toBe(200);
    const { readdirSync, readFileSync } = await import("node:fs");
    const files = readdirSync(`${t.config.dataDir}/outbox`);
    expect(files).toHaveLength(1);
    expect(readFileSync(`${t.config.dataDir}/outbox/${files[0]}`, "utf8")).toContain("Subject: Outbox");
  });
});
