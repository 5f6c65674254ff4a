import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../../test/helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const valid = {
  name: "Exp",
  targetUrl: "/",
  variants: [{ name: "control" }, { name: "b" }],
};

describe("experiments: invalid input (400)", () => {
  it.each([
    ["one variant", { ...valid, variants: [{ name: "only" }] }, "variants"],
    ["duplicate variant names", { ...valid, variants: [{ name: "a" }, { name: "a" }] }, "unique"],
    ["trafficSplit above 100", { ...valid, trafficSplit: 101 }, "trafficSplit"],
    ["negative trafficSplit", { ...valid, trafficSplit: -1 }, "trafficSplit"],
    ["unknown mode", { ...valid, mode: "split" }, "mode"],
    ["missing name", { targetUrl: "/", variants: valid.variants }, "name"],
    ["variant without a name", { ...valid, variants: [{ name: "a" }, { css: "x" }] }, "name"],
    ["unknown field", { ...valid, colour: "red" }, "colour"],
  ])("refuses %s", async (_label, payload, field) => {
    const a = await t.tenant();
    const res = await a.post("/api/experiments", payload);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
    expect(res.body.error).toContain(field);
  });

  it("validates the status filter", async () => {
    const a = await t.tenant();
    const res = await a.get("/api/experiments?status=finished");
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    expect(res.body.error).toContain("status");
  });

  it("refuses a beliefId that is unknown or belongs to another project", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    const foreign = await b.post("/api/beliefs", { statement: "Theirs" });
    for (const beliefId of ["bel_nope", foreign.body.id]) {
      const res = await a.post("/api/experiments", { ...valid, beliefId });
      expect(res.status).toBe(400);
      expect(res.body.error).toContain("beliefId");
    }
    const e = await a.post("/api/experiments", valid);
    const patch = await a.patch("/api/experiments", { id: e.body.id, beliefId: foreign.body.id });
    expect(patch.status).toBe(400);
  });

  it("refuses unknown conversion goal ids", async () => {
    const a = await t.tenant();
    const res = await a.post("/api/experiments", { ...valid, conversionGoalIds: ["cg_missing"] });
    expect(res.status).toBe(400);
    expect(res.body.error).toContain("conversionGoalIds");
  });

  it("refuses malformed JSON and non-JSON bodies", async () => {
    const a = await t.tenant();
    const res = await a.request("POST", "/api/experiments", "{nope", {
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
  });
});

describe("experiments: transitions (409)", () => {
  it.each([
    [[], "paused"],
    [[], "completed"],
    [[], "draft"],
    [["running"], "draft"],
    [["running"], "running"],
    [["running", "paused"], "paused"],
    [["running", "completed"], "running"],
    [["running", "completed"], "paused"],
    [["running", "completed"], "completed"],
  ] as Array<[string[], string]>)("after %j refuses → %s with INVALID_TRANSITION", async (path, to) => {
    const a = await t.tenant();
    const e = (await a.post("/api/experiments", valid)).body;
    for (const s of path)
      expect((await a.patch("/api/experiments", { id: e.id, status: s })).status).toBe(200);
    const res = await a.patch("/api/experiments", { id: e.id, status: to });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: "INVALID_TRANSITION", status: 409 });
    expect((await a.get(`/api/experiments/${e.id}`)).body.status).toBe(path.at(-1) ?? "draft");
  });

  it("freezes variants once the experiment has run (also when paused)", async () => {
    const a = await t.tenant();
    const e = (await a.post("/api/experiments", valid)).body;
    await a.patch("/api/experiments", { id: e.id, status: "running" });
    await a.patch("/api/experiments", { id: e.id, status: "paused" });
    const res = await a.patch("/api/experiments", { id: e.id, variants: [{ name: "x" }, { name: "y" }] });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("CONFLICT");
    expect(
      (await a.get(`/api/experiments/${e.id}`)).body.variants.map((v: { name: string }) => v.name),
    ).toEqual(["control", "b"]);
  });
});

describe("experiments: access", () => {
  it("answers 404 for unknown ids and for another project's experiment", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    const theirs = (await b.post("/api/experiments", valid)).body;
    expect((await a.get("/api/experiments/exp_missing")).status).toBe(404);
    expect((await a.get(`/api/experiments/${theirs.id}`)).status).toBe(404);
    const patch = await a.patch("/api/experiments", { id: theirs.id, status: "running" });
    expect(patch.status).toBe(404);
    expect((await b.get(`/api/experiments/${theirs.id}`)).body.status).toBe("draft");
  });

  it("requires credentials (401) and a valid key", async () => {
    const a = await t.tenant();
    expect((await a.get("/api/experiments", { as: "none" })).status).toBe(401);
    expect((await a.post("/api/experiments", valid, { as: "none" })).status).toBe(401);
    const bad = await a.get("/api/experiments", { as: "none", headers: { "x-api-key": "svc_key_wrong" } });
    expect(bad.status).toBe(401);
    // A dashboard session works too.
    expect((await a.get("/api/experiments", { as: "member" })).status).toBe(200);
  });
});
