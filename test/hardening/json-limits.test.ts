import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../../src/platform/json-body.js";
import { startTestApp, type Tenant, type TestApp } from "../helpers/app.js";

/**
 * JSON bodies are bounded before any route sees them: nesting deeper than the documented limit and
 * numbers that overflow to Infinity (`1e999`) are 400 in the spec's format naming the problem —
 * never a stack overflow in validation (500), never a non-finite number stored as null.
 */
let t: TestApp;
let a: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.tenant();
});
afterAll(async () => t?.close());

const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
const SITE = "https://shop.example";

describe("JSON nesting limit", () => {
  it("a snippet event with data nested 10,000 levels is 400, not 500", async () => {
    const body = `{"projectKey":"${a.publicKey}","visitorId":"v1","type":"pageview","url":"${SITE}/","data":${nested(10_000)}}`;
    const res = await a.post("/api/events", body, { as: "none" });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: `body is nested deeper than ${MAX_JSON_DEPTH} levels`,
      code: "VALIDATION_ERROR",
      status: 400,
      requestId: expect.any(String),
    });
  });

  it("a batch event with data nested 10,000 levels is 400, not 500", async () => {
    const body = `{"projectKey":"${a.apiKey}","events":[{"type":"signup","url":"${SITE}/","data":${nested(10_000)}}]}`;
    const res = await a.post("/api/events", body, { as: "none" });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
  });

  it("the limit is exact: 64 levels are accepted, 65 are not", async () => {
    // The body's own object is level 1, so `data` can hold MAX_JSON_DEPTH - 1 levels.
    const event = (depth: number) =>
      `{"projectKey":"${a.publicKey}","visitorId":"v2","type":"pageview","url":"${SITE}/","data":${nested(depth)}}`;
    expect((await a.post("/api/events", event(MAX_JSON_DEPTH - 1), { as: "none" })).status).toBe(200);
    expect((await a.post("/api/events", event(MAX_JSON_DEPTH), { as: "none" })).status).toBe(400);
  });

  it("strings full of brackets do not count as nesting", async () => {
    const res = await a.post(
      "/api/events",
      {
        projectKey: a.publicKey,
        visitorId: "v3",
        type: "pageview",
        url: `${SITE}/`,
        data: { s: "[{".repeat(5000) },
      },
      { as: "none" },
    );
    expect(res.status).toBe(200);
  });
});

describe("non-finite numbers", () => {
  it("sampleSize 1e999 on update-confidence is 400 naming the field", async () => {
    const belief = await a.post("/api/beliefs", { statement: "Shorter forms convert better" });
    expect(belief.status).toBe(201);
    const res = await a.post(
      `/api/beliefs/${belief.body.id}/update-confidence`,
      '{"type":"observation","delta":0.1,"sampleSize":1e999}',
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: "body.sampleSize must be a finite number",
      code: "VALIDATION_ERROR",
      status: 400,
      requestId: expect.any(String),
    });
  });

  it("an event whose data holds -1e400 is 400 naming the path, not stored as null", async () => {
    const body = `{"projectKey":"${a.apiKey}","events":[{"type":"signup","url":"${SITE}/","data":{"list":[1,-1e400]}}]}`;
    const res = await a.post("/api/events", body, { as: "none" });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("body.events[0].data.list[1] must be a finite number");
  });

  it("large finite numbers and exponents that fit are accepted", async () => {
    const body = `{"projectKey":"${a.publicKey}","visitorId":"v4","type":"pageview","url":"${SITE}/","data":{"big":1.7e308,"e":"1e999","n":12e3}}`;
    const res = await a.post("/api/events", body, { as: "none" });
    expect(res.status).toBe(200);
  });
});

describe("NUL characters (PostgreSQL text cannot hold them)", () => {
  it("a NUL in a body string is 400 naming the field", async () => {
    const res = await a.post("/api/identity", { visitorId: "v\u0000", leadId: "lead-1" });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe("body.visitorId must not contain NUL (\\u0000) characters");
  });

  it("a NUL in a path parameter or query value is 400 naming it", async () => {
    const del = await a.request("DELETE", "/api/transactional/suppressions/a%00b", undefined, {
      as: "admin",
    });
    expect(del.status).toBe(400);
    expect(del.body.error).toBe("params.email must not contain NUL (\\u0000) characters");
    const get = await a.get("/api/identity?visitorId=%00");
    expect(get.status).toBe(400);
    expect(get.body.error).toBe("querystring.visitorId must not contain NUL (\\u0000) characters");
  });

  it("an escaped backslash before u0000 is text, not a NUL", async () => {
    const res = await a.post("/api/beliefs", { statement: "literally \\u0000 here" });
    expect(res.status).toBe(201);
  });
});
