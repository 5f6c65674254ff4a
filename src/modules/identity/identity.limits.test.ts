import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, startTestApp } from "../../../test/helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ rateLimits: { events: 1000, reads: 200, writes: 2 } });
});
afterAll(async () => t.close());

describe("POST /api/identity/stitch as a public endpoint", () => {
  it("applies the write limit per project key: 429 with Retry-After", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    const stitch = (key: string, visitorId: string) =>
      a.post(
        "/api/identity/stitch",
        { projectKey: key, visitorId, email: `${visitorId}@example.com` },
        { as: "none" },
      );
    expect((await stitch(a.publicKey, "v1")).status).toBe(200);
    expect((await stitch(a.publicKey, "v2")).status).toBe(200);
    const limited = await stitch(a.publicKey, "v3");
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ code: "RATE_LIMITED", status: 429 });
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    // another project's key has its own budget
    expect((await stitch(b.publicKey, "v1")).status).toBe(200);
  });

  it("answers a cross-origin preflight with open CORS", async () => {
    const res = await t.app.inject({
      method: "OPTIONS",
      url: "/api/identity/stitch",
      headers: {
        origin: "https://shop.example.com",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type",
      },
    });
    expect(res.statusCode).toBeLessThan(300);
    expect(res.headers["access-control-allow-origin"]).toBe("*");
  });
});
