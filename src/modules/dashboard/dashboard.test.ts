import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, startTestApp } from "../../../test/helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe("dashboard page", () => {
  it("serves the page at / and /integrations with an ETag and a strict CSP", async () => {
    for (const url of ["/", "/integrations?connected=crm"]) {
      const res = await t.app.inject({ url });
      expect(res.statusCode).toBe(200);
      expect(res.headers["content-type"]).toMatch(/text\/html/);
      expect(res.body).toContain("/api/auth/me");
      expect(res.headers["content-security-policy"]).toMatch(/frame-ancestors 'none'/);
      const again = await t.app.inject({ url, headers: { "if-none-match": String(res.headers.etag) } });
      expect(again.statusCode).toBe(304);
    }
  });
});
