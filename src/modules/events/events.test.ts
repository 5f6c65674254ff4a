import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type Tenant, type TestApp } from "../../../test/helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const URL_ = "https://shop.example.com/pricing";
const BROWSER =
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36";
const send = (a: Tenant, body: unknown, headers: Record<string, string> = {}) =>
  a.post("/api/events", body, { as: "none", headers: { "user-agent": BROWSER, ...headers } });
const snippet = (a: Tenant, extra: Record<string, unknown> = {}) => ({
  type: "pageview",
  visitorId: "v1",
  projectKey: a.publicKey,
  url: URL_,
  ...extra,
});

async function stored(a: Tenant) {
  return t.app.db
    .selectFrom("events")
    .selectAll()
    .where("project_id", "=", a.projectId)
    .orderBy("ts")
    .orderBy("id")
    .execute();
}

describe("POST /api/events — accepted formats", () => {
  it("stores a snippet event and answers {received: 1} after commit", async () => {
    const a = await t.tenant();
    const res = await send(a, snippet(a, { data: { plan: "pro" }, referrer: "https://www.google.com/" }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: 1 });
    const rows = await stored(a);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      type: "pageview",
      visitor_id: "v1",
      url: URL_,
      channel: "organic_search",
      source: "google",
      is_bot: 0,
    });
    expect(JSON.parse(rows[0]!.data)).toEqual({ plan: "pro" });
  });

  it("stores a batch, applies userId as leadId to every event and reports invalid ones", async () => {
    const a = await t.tenant();
    const res = await a.post(
      "/api/events",
      {
        projectKey: a.publicKey,
        userId: "lead_42",
        events: [
          { type: "pageview", url: URL_, timestamp: "2026-01-01T10:00:00Z" },
          { type: "", url: URL_ },
          { type: "click", url: URL_, data: { button: "buy" }, visitorId: "anon-7" },
          { type: "click" },
        ],
      },
      { as: "none" },
    );
    expect(res.status).toBe(200);
    expect(res.body.received).toBe(2);
    expect(res.body.errors).toEqual([
      { index: 1, code: "VALIDATION_ERROR", message: "events[1].type is required" },
      { index: 3, code: "VALIDATION_ERROR", message: "events[3].url is required" },
    ]);
    const rows = await stored(a);
    expect(rows.map((r) => [r.type, r.visitor_id, r.lead_id, Number(r.ts)])).toEqual([
      ["pageview", "lead:lead_42", "lead_42", Date.parse("2026-01-01T10:00:00Z")],
      ["click", "anon-7", "lead_42", expect.any(Number)],
    ]);
  });

  it("accepts text/plain JSON (sendBeacon) with open CORS", async () => {
    const a = await t.tenant();
    const res = await t.app.inject({
      method: "POST",
      url: "/api/events",
      headers: { "content-type": "text/plain;charset=UTF-8", origin: "https://shop.example.com" },
      payload: JSON.stringify(snippet(a)),
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBe("*");
    expect((await stored(a)).length).toBe(1);
    const pre = await t.app.inject({
      method: "OPTIONS",
      url: "/api/events",
      headers: { origin: "https://shop.example.com", "access-control-request-method": "POST" },
    });
    expect(pre.statusCode).toBe(204);
    expect(pre.headers["access-control-allow-origin"]).toBe("*");
  });

  it("accepts a gzip body", async () => {
    const a = await t.tenant();
    const body = {
      projectKey: a.publicKey,
      visitorId: "v9",
      events: [
        { type: "pageview", url: URL_ },
        { type: "scroll", url: URL_ },
      ],
    };
    const res = await t.app.inject({
      method: "POST",
      url: "/api/events",
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      payload: gzipSync(JSON.stringify(body)),
    });
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ received: 2, errors: [] });
    expect((await stored(a)).map((r) => r.visitor_id)).toEqual(["v9", "v9"]);
  });

  it("flags bot user agents and stores their events", async () => {
    const a = await t.tenant();
    const ua = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
    const res = await a.post("/api/events", snippet(a), { as: "none", headers: { "user-agent": ua } });
    expect(res.status).toBe(200);
    const human =
      "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36";
    await a.post("/api/events", snippet(a, { visitorId: "v2" }), {
      as: "none",
      headers: { "user-agent": human },
    });
    const rows = await stored(a);
    expect(rows.map((r) => [r.visitor_id, Number(r.is_bot)])).toEqual([
      ["v1", 1],
      ["v2", 0],
    ]);
  });
});
