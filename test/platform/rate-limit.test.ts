import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, startTestApp } from "../helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe("per-key rate limits (spec defaults)", () => {
  it("the 101st write in a minute is 429 with Retry-After; another project key is unaffected", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    for (let i = 0; i < 100; i++) {
      const res = await a.post("/api/beliefs", { statement: `b${i}` });
      expect(res.status).toBe(201);
      if (i === 0) {
        expect(res.headers["x-ratelimit-limit"]).toBe("100");
        expect(res.headers["x-ratelimit-remaining"]).toBe("99");
      }
    }
    const over = await a.post("/api/beliefs", { statement: "one too many" });
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ code: "RATE_LIMITED", status: 429 });
    expect(Number(over.headers["retry-after"])).toBeGreaterThan(0);
    expect(over.headers["x-ratelimit-remaining"]).toBe("0");
    // Reads have their own budget; another key has its own counter.
    expect((await a.get("/api/beliefs")).status).toBe(200);
    expect((await b.post("/api/beliefs", { statement: "fine" })).status).toBe(201);
  });

  it("reads are limited at 200 per minute", async () => {
    const a = await t.tenant();
    for (let i = 0; i < 200; i++) expect((await a.get("/api/goals")).status).toBe(200);
    const over = await a.get("/api/goals");
    expect(over.status).toBe(429);
    expect(over.headers["retry-after"]).toBeDefined();
  });
});
