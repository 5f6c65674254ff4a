import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../../test/helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe("exposures and conversions through POST /api/events", () => {
  it("counts sendBeacon-style exposures and the conversion that follows", async () => {
    const a = await t.tenant();
    await a.post("/api/conversion-goals", {
      name: "Signup",
      eventType: "form_submit",
      urlPattern: "/signup",
    });
    const e = (
      await a.post("/api/experiments", {
        name: "CTA",
        targetUrl: "/pricing",
        variants: [{ name: "control" }, { name: "green" }],
      })
    ).body;
    await a.patch("/api/experiments", { id: e.id, status: "running" });
    const send = (event: Record<string, unknown>) =>
      a.request("POST", "/api/events", JSON.stringify({ projectKey: a.publicKey, ...event }), {
        as: "none",
        headers: {
          "content-type": "text/plain;charset=UTF-8",
          // inject's default user agent counts as a bot, and bots are left out of experiments.
          "user-agent":
            "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36",
        },
      });
    const base = { url: "https://shop.example/pricing" };
    for (const [visitorId, variant] of [
      ["v1", "control"],
      ["v2", "green"],
      ["v3", "green"],
    ]) {
      const res = await send({
        ...base,
        type: "$exposure",
        visitorId,
        data: { experimentId: e.id, variant },
      });
      expect(res.status).toBe(200);
    }
    await send({
      ...base,
      type: "$exposure",
      visitorId: "v2",
      data: { experimentId: e.id, variant: "green" },
    });
    await send({ type: "form_submit", visitorId: "v2", url: "https://shop.example/signup" });
    await send({ type: "form_submit", visitorId: "v3", url: "https://shop.example/contact" }); // not the goal
    const got = (await a.get(`/api/experiments/${e.id}`)).body;
    expect(
      got.results.variants.map((v: { exposures: number; conversions: number }) => [
        v.exposures,
        v.conversions,
      ]),
    ).toEqual([
      [1, 0],
      [2, 1],
    ]);
    expect(got.results.variants[1].conversionRate).toBe(0.5);
    // The list carries the same results.
    const listed = (await a.get("/api/experiments")).body[0];
    expect(listed.results.totalConversions).toBe(1);
  });
});
