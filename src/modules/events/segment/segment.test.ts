import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../../../test/helpers/app.js";
import { call, mid, storedEvents } from "./testing.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe("smoke", () => {
  it("stores a track", async () => {
    const a = await t.tenant();
    const res = await call(a, "/v1/track", {
      userId: "u1",
      event: "Order Completed",
      properties: { total: 12.5, currency: "eur" },
      messageId: mid(),
    });
    expect(res.body).toEqual({ success: true });
    const ev = await storedEvents(t, a);
    console.log(ev);
  });
});
