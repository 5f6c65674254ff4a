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
