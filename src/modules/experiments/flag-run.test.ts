import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../../test/helpers/app.js";

/**
 * An experiment run by a feature flag's experiment rule shows its variants in the customer's code,
 * not on a page: it has no targetUrl. A snippet experiment keeps the spec's required targetUrl.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const variants = [{ name: "control" }, { name: "b" }];

describe("experiments run by a feature flag", () => {
  it("are created without a page URL, run, are bucketed by the flag, and stay off the snippet's list", async () => {
    const a = await t.tenant();
    const created = await a.post("/api/experiments", { name: "Pricing copy", runner: "flag", variants });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ runner: "flag", targetUrl: null, status: "draft" });
    const id = created.body.id as string;
    expect((await a.get(`/api/experiments/${id}`)).body).toMatchObject({ runner: "flag", targetUrl: null });
    const page = await a.post("/api/experiments", { name: "Headline", targetUrl: "/plans", variants });
    expect(page.body).toMatchObject({ runner: "snippet", targetUrl: "/plans" });

    const flag = await a.post("/api/flags", {
      key: "pricing-copy",
      valueType: "string",
      defaultValue: "old",
      rules: [{ type: "experiment", experimentId: id, variations: ["old", "new"] }],
    });
    expect(flag.status).toBe(201);
    for (const e of [id, page.body.id])
      expect((await a.patch("/api/experiments", { id: e, status: "running" })).status).toBe(200);
    const value = await a.post("/api/flags/pricing-copy/evaluate", { attributes: { id: "u1" } });
    expect(value.body).toMatchObject({
      source: "experiment",
      variant: expect.stringMatching(/^(control|b)$/),
    });

    // The snippet is served the page experiment only: a flag's experiment has no page to run on.
    const active = await a.get(`/api/experiments/active?key=${a.publicKey}`, { as: "none" });
    expect(active.status).toBe(200);
    expect(active.body.map((e: { id: string }) => e.id)).toEqual([page.body.id]);
  });

  it("keep the spec's contract for snippet experiments: targetUrl is required", async () => {
    const a = await t.tenant();
    for (const body of [
      { name: "No page", variants },
      { name: "No page", runner: "snippet", variants },
    ]) {
      const res = await a.post("/api/experiments", body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
      expect(res.body.error).toContain("targetUrl");
    }
  });

  it("refuses a page URL on a flag's experiment, at creation and in an edit", async () => {
    const a = await t.tenant();
    const both = await a.post("/api/experiments", { name: "Both", runner: "flag", targetUrl: "/", variants });
    expect(both.status).toBe(400);
    expect(both.body).toMatchObject({ code: "VALIDATION_ERROR" });
    expect(both.body.error).toContain("targetUrl");
    const bad = await a.post("/api/experiments", { name: "Odd", runner: "server", variants });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain("runner");

    const e = await a.post("/api/experiments", { name: "Flag", runner: "flag", variants });
    const patch = await a.patch("/api/experiments", { id: e.body.id, targetUrl: "/pricing" });
    expect(patch.status).toBe(400);
    expect(patch.body.error).toContain("targetUrl");
    const renamed = await a.patch("/api/experiments", { id: e.body.id, name: "Flag v2", trafficSplit: 50 });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({
      name: "Flag v2",
      trafficSplit: 50,
      runner: "flag",
      targetUrl: null,
    });
  });
});
