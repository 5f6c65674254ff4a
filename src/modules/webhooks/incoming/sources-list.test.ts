import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../../../test/helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ publicUrl: "https://lift.example.com" });
});
afterAll(async () => t.close());

describe("GET /api/webhooks/sources", () => {
  it("lists every source, whether its secret is set (never the secret) and the address to give the platform", async () => {
    const a = await t.tenant();
    const empty = await a.get("/api/webhooks/sources", { as: "admin" });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual([
      { source: "crm", configured: false, updatedAt: null, url: "https://lift.example.com/api/webhooks/crm" },
      {
        source: "payments",
        configured: false,
        updatedAt: null,
        url: "https://lift.example.com/api/webhooks/payments",
      },
      {
        source: "code_host",
        configured: false,
        updatedAt: null,
        url: "https://lift.example.com/api/webhooks/code_host",
      },
    ]);
    const put = await a.put(
      "/api/webhooks/sources/payments",
      { secret: "whsec_very-secret-value" },
      { as: "admin" },
    );
    expect(put.status).toBe(200);
    const after = await a.get("/api/webhooks/sources", { as: "admin" });
    const payments = after.body.find((s: { source: string }) => s.source === "payments");
    expect(payments.configured).toBe(true);
    expect(payments.updatedAt).toEqual(expect.any(String));
    expect(after.text).not.toContain("very-secret-value");
    // another workspace's list is its own
    const b = await t.tenant();
    const other = await b.get("/api/webhooks/sources", { as: "admin" });
    expect(other.body.every((s: { configured: boolean }) => !s.configured)).toBe(true);
  });

  it("is for workspace admins only", async () => {
    const a = await t.tenant();
    expect((await a.get("/api/webhooks/sources", { as: "member" })).status).toBe(403);
    expect((await a.get("/api/webhooks/sources", { as: "none" })).status).toBe(401);
  });
});
