import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type Tenant, type TestApp } from "../../../test/helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const URL_ = "https://shop.example.com/";
const ok = (a: Tenant) => ({ type: "pageview", visitorId: "v1", projectKey: a.publicKey, url: URL_ });
const send = (a: Tenant, body: unknown, headers: Record<string, string> = {}) =>
  a.post("/api/events", body, { as: "none", headers });
const count = async (a: Tenant) =>
  (await t.app.db.selectFrom("events").select("id").where("project_id", "=", a.projectId).execute()).length;

describe("POST /api/events — 400 on an invalid single event, naming the field", () => {
  const cases: [string, (a: Tenant) => unknown, string][] = [
    ["body not an object", () => [1, 2], "body must be a JSON object"],
    ["projectKey missing", (a) => ({ ...ok(a), projectKey: undefined }), "body.projectKey is required"],
    [
      "projectKey not a string",
      (a) => ({ ...ok(a), projectKey: 5 }),
      "body.projectKey must be a non-empty string",
    ],
    ["type missing", (a) => ({ ...ok(a), type: undefined }), "body.type is required"],
    ["type not a string", (a) => ({ ...ok(a), type: 3 }), "body.type must be a string"],
    [
      "type too long",
      (a) => ({ ...ok(a), type: "x".repeat(201) }),
      "body.type must be at most 200 characters",
    ],
    ["visitorId missing", (a) => ({ ...ok(a), visitorId: undefined }), "body.visitorId is required"],
    ["url missing", (a) => ({ ...ok(a), url: undefined }), "body.url is required"],
    ["url not absolute", (a) => ({ ...ok(a), url: "/pricing" }), "body.url must be an absolute URL"],
    ["referrer not a string", (a) => ({ ...ok(a), referrer: 1 }), "body.referrer must be a string"],
    ["data not an object", (a) => ({ ...ok(a), data: [1] }), "body.data must be an object"],
    [
      "data over 32 KiB",
      (a) => ({ ...ok(a), data: { s: "é".repeat(17_000) } }),
      "body.data is larger than 32 KiB",
    ],
    [
      "timestamp not ISO",
      (a) => ({ ...ok(a), timestamp: "yesterday" }),
      "body.timestamp must be an ISO 8601 date-time",
    ],
    [
      "timestamp invalid date",
      (a) => ({ ...ok(a), timestamp: "2026-13-45T99:00:00Z" }),
      "body.timestamp must be an ISO 8601 date-time",
    ],
    [
      "timestamp far future",
      (a) => ({ ...ok(a), timestamp: "2999-01-01T00:00:00Z" }),
      "body.timestamp is out of range",
    ],
    ["events not an array", (a) => ({ projectKey: a.publicKey, events: {} }), "body.events must be an array"],
    ["events empty", (a) => ({ projectKey: a.publicKey, events: [] }), "body.events must not be empty"],
    [
      "userId not a string",
      (a) => ({ projectKey: a.publicKey, userId: 7, events: [{ type: "x", url: URL_ }] }),
      "body.userId must be",
    ],
  ];
  for (const [name, body, message] of cases) {
    it(name, async () => {
      const a = await t.tenant();
      const res = await send(a, body(a));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
      expect(res.body.error).toContain(message);
      expect(await count(a)).toBe(0);
    });
  }

  it("invalid JSON", async () => {
    const a = await t.tenant();
    const res = await send(a, "{not json");
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", error: "body is not valid JSON" });
  });

  it("a batch whose events are all invalid is 400 and lists every error", async () => {
    const a = await t.tenant();
    const res = await send(a, {
      projectKey: a.publicKey,
      events: [{ type: "x", visitorId: "v" }, "nope", { url: URL_, visitorId: "v" }],
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    expect(res.body.error).toContain("events[0].url is required");
    expect(res.body.errors).toEqual([
      { index: 0, code: "VALIDATION_ERROR", message: "events[0].url is required" },
      { index: 1, code: "VALIDATION_ERROR", message: "events[1] must be an object" },
      { index: 2, code: "VALIDATION_ERROR", message: "events[2].type is required" },
    ]);
    expect(await count(a)).toBe(0);
  });

  it("a batch event needs no visitorId (an anonymous server event), but a snippet event does", async () => {
    const a = await t.tenant();
    const res = await send(a, { projectKey: a.publicKey, events: [{ type: "x", url: URL_ }] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: 1, errors: [] });
    const single = await send(a, { projectKey: a.publicKey, type: "x", url: URL_ });
    expect(single.status).toBe(400);
    expect(single.body.error).toBe("body.visitorId is required");
  });

  it("a batch event's context must be an object and its userAgent a string", async () => {
    const a = await t.tenant();
    const res = await send(a, {
      projectKey: a.publicKey,
      visitorId: "v1",
      events: [
        { type: "x", url: URL_, context: "Googlebot" },
        { type: "x", url: URL_, context: { userAgent: ["x"] } },
        { type: "x", url: URL_, context: {} },
      ],
    });
    expect(res.body).toEqual({
      received: 1,
      errors: [
        { index: 0, code: "VALIDATION_ERROR", message: "events[0].context must be an object" },
        { index: 1, code: "VALIDATION_ERROR", message: "events[1].context.userAgent must be a string" },
      ],
    });
  });

  it("corrupt gzip is 400", async () => {
    const a = await t.tenant();
    const res = await t.app.inject({
      method: "POST",
      url: "/api/events",
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      payload: Buffer.from("definitely not gzip"),
    });
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body)).toMatchObject({
      code: "VALIDATION_ERROR",
      error: "body is not valid gzip data",
    });
    expect(await count(a)).toBe(0);
  });
});

describe("POST /api/events — 401, 413, 415", () => {
  it("an unknown projectKey is 401 and stores nothing", async () => {
    const a = await t.tenant();
    const res = await send(a, { ...ok(a), projectKey: "svc_pk_unknown" });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ code: "UNAUTHORIZED", status: 401 });
    expect(await count(a)).toBe(0);
  });

  it("a secret API key is a projectKey too (the spec's svc_key_ format); a made-up one is 401", async () => {
    const a = await t.tenant();
    expect((await send(a, { ...ok(a), projectKey: a.apiKey })).status).toBe(200);
    const res = await send(a, { ...ok(a), projectKey: `svc_key_${"0".repeat(48)}` });
    expect(res.status).toBe(401);
    expect(await count(a)).toBe(1);
  });

  it("a body over 1 MiB is 413", async () => {
    const a = await t.tenant();
    const res = await send(a, { ...ok(a), data: { pad: "x".repeat(1024 * 1024) } });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ code: "PAYLOAD_TOO_LARGE", status: 413 });
  });

  it("a gzip bomb is cut off at 1 MiB after decompression (413)", async () => {
    const a = await t.tenant();
    // 64 MiB of JSON compresses to ~64 KiB; it must be refused without inflating it all.
    const bomb = gzipSync(
      Buffer.concat([
        Buffer.from(`{"projectKey":"${a.publicKey}","pad":"`),
        Buffer.alloc(64 * 1024 * 1024, 0x61),
        Buffer.from('"}'),
      ]),
    );
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const started = Date.now();
    const res = await t.app.inject({
      method: "POST",
      url: "/api/events",
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      payload: bomb,
    });
    expect(res.statusCode).toBe(413);
    expect(JSON.parse(res.body)).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await count(a)).toBe(0);
  });

  it("a batch of more than 1000 events is 413", async () => {
    const a = await t.tenant();
    const events = Array.from({ length: 1001 }, () => ({ type: "x", url: URL_, visitorId: "v" }));
    const res = await send(a, { projectKey: a.publicKey, events });
    expect(res.status).toBe(413);
    expect(res.body.error).toContain("more than 1000 events");
    expect(await count(a)).toBe(0);
  });

  it("an unknown Content-Encoding is 415", async () => {
    const a = await t.tenant();
    const res = await send(a, ok(a), { "content-encoding": "br" });
    expect(res.status).toBe(415);
    expect(res.body.code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });
});
