import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, startTestApp } from "../helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const origin = { origin: "https://customer-site.example" };

describe("CORS", () => {
  it("is open on the snippet's public endpoints, preflights included", async () => {
    const a = await t.tenant();
    const active = await t.app.inject({ url: `/api/experiments/active?key=${a.publicKey}`, headers: origin });
    expect(active.headers["access-control-allow-origin"]).toBe("*");
    const preflight = await t.app.inject({
      method: "OPTIONS",
      url: "/api/events",
      headers: {
        ...origin,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
      },
    });
    expect(preflight.statusCode).toBeLessThan(300);
    expect(preflight.headers["access-control-allow-origin"]).toBe("*");
    expect(String(preflight.headers["access-control-allow-methods"])).toContain("POST");
  });

  it("is open on Segment's tracking API, whose browser calls carry Authorization (preflighted)", async () => {
    const a = await t.tenant();
    const settings = await t.app.inject({ url: `/v1/projects/${a.publicKey}/settings`, headers: origin });
    expect(settings.headers["access-control-allow-origin"]).toBe("*");
    for (const url of ["/v1/t", "/v1/batch"]) {
      const preflight = await t.app.inject({
        method: "OPTIONS",
        url,
        headers: {
          ...origin,
          "access-control-request-method": "POST",
          "access-control-request-headers": "authorization,content-type",
        },
      });
      expect(preflight.statusCode, url).toBeLessThan(300);
      expect(preflight.headers["access-control-allow-origin"], url).toBe("*");
      expect(String(preflight.headers["access-control-allow-headers"]), url).toContain("authorization");
    }
    const call = await t.app.inject({
      method: "POST",
      url: "/v1/t",
      headers: { ...origin, "content-type": "text/plain" },
      payload: JSON.stringify({ type: "track", event: "E", anonymousId: "v", writeKey: a.publicKey }),
    });
    expect(call.statusCode).toBe(200);
    expect(call.headers["access-control-allow-origin"]).toBe("*");
  });

  it("is closed on authenticated endpoints", async () => {
    const a = await t.tenant();
    const res = await a.get("/api/goals", { headers: origin });
    expect(res.status).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
    const preflight = await t.app.inject({
      method: "OPTIONS",
      url: "/api/goals",
      headers: { ...origin, "access-control-request-method": "POST" },
    });
    expect(preflight.headers["access-control-allow-origin"]).toBeUndefined();
  });
});
