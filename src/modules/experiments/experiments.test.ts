import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type Tenant, type TestApp } from "../../../test/helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const body = (extra: Record<string, unknown> = {}) => ({
  name: "Pricing headline",
  targetUrl: "/pricing*",
  variants: [{ name: "control" }, { name: "bold", css: "h1{font-weight:900}" }],
  ...extra,
});

async function serviceEvents(a: Tenant, type: string) {
  const rows = await t.app.db
    .selectFrom("service_events")
    .selectAll()
    .where("project_id", "=", a.projectId)
    .where("type", "=", type as never)
    .execute();
  return rows.map((r) => JSON.parse(r.data));
}

describe("experiments API", () => {
  it("creates a draft with defaults, lists it newest first, and gets it with empty results", async () => {
    const a = await t.tenant();
    const res = await a.post("/api/experiments", body());
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: "Pricing headline",
      status: "draft",
      mode: "ab",
      trafficSplit: 100,
      beliefId: null,
      confidence: 0,
      weights: [0.5, 0.5],
      minSamplePerVariant: 100,
    });
    expect(res.body.results.variants).toHaveLength(2);
    expect(res.body.results.variants[1]).toMatchObject({ name: "bold", exposures: 0, conversions: 0 });
    const second = await a.post(
      "/api/experiments",
      body({ name: "Second", mode: "bandit", trafficSplit: 40 }),
    );
    const list = await a.get("/api/experiments");
    expect(list.body.map((e: { id: string }) => e.id)).toEqual([second.body.id, res.body.id]);
    const one = await a.get(`/api/experiments/${res.body.id}`);
    expect(one.status).toBe(200);
    expect(one.body.variants[1].css).toBe("h1{font-weight:900}");
  });

  it("filters by status", async () => {
    const a = await t.tenant();
    const e1 = await a.post("/api/experiments", body());
    await a.post("/api/experiments", body({ name: "other" }));
    await a.patch("/api/experiments", { id: e1.body.id, status: "running" });
    const running = await a.get("/api/experiments?status=running");
    expect(running.body.map((e: { id: string }) => e.id)).toEqual([e1.body.id]);
    expect((await a.get("/api/experiments?status=draft")).body).toHaveLength(1);
    expect((await a.get("/api/experiments?status=completed")).body).toHaveLength(0);
  });

  it("links a belief of the project and restricts conversion goals", async () => {
    const a = await t.tenant();
    const belief = await a.post("/api/beliefs", { statement: "Bold headlines sell" });
    const goal = await a.post("/api/conversion-goals", { name: "Signup", eventType: "signup" });
    const res = await a.post(
      "/api/experiments",
      body({ beliefId: belief.body.id, conversionGoalIds: [goal.body.id] }),
    );
    expect(res.status).toBe(201);
    expect(res.body.beliefId).toBe(belief.body.id);
    expect(res.body.conversionGoalIds).toEqual([goal.body.id]);
  });

  it("walks draft → running → paused → running → completed firing started twice and completed once", async () => {
    const a = await t.tenant();
    const e = (await a.post("/api/experiments", body())).body;
    const run = await a.patch("/api/experiments", { id: e.id, status: "running" });
    expect(run.status).toBe(200);
    expect(run.body.status).toBe("running");
    expect(run.body.startedAt).toEqual(expect.any(String));
    expect((await a.patch("/api/experiments", { id: e.id, status: "paused" })).body.status).toBe("paused");
    expect((await a.patch("/api/experiments", { id: e.id, status: "running" })).body.status).toBe("running");
    const done = await a.patch("/api/experiments", { id: e.id, status: "completed" });
    expect(done.body).toMatchObject({ status: "completed", completionReason: "manual", winner: null });
    expect(done.body.completedAt).toEqual(expect.any(String));
    const started = await serviceEvents(a, "experiment.started");
    expect(started).toHaveLength(2);
    expect(started[0]).toMatchObject({ id: e.id, status: "running", variants: ["control", "bold"] });
    const completed = await serviceEvents(a, "experiment.completed");
    expect(completed).toHaveLength(1);
    expect(completed[0]).toMatchObject({ id: e.id, status: "completed", completionReason: "manual" });
  });

  it("edits name, trafficSplit and variants while in draft", async () => {
    const a = await t.tenant();
    const e = (await a.post("/api/experiments", body())).body;
    const res = await a.patch("/api/experiments", {
      id: e.id,
      name: "Renamed",
      trafficSplit: 25,
      variants: [{ name: "a" }, { name: "b" }, { name: "c" }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: "Renamed", trafficSplit: 25 });
    expect(res.body.weights).toHaveLength(3);
    // Unchanged variants are accepted after the run (idempotent PATCH).
    await a.patch("/api/experiments", { id: e.id, status: "running" });
    const same = await a.patch("/api/experiments", {
      id: e.id,
      variants: res.body.variants,
      trafficSplit: 50,
    });
    expect(same.status).toBe(200);
    expect(same.body.trafficSplit).toBe(50);
  });

  it("accepts a multivariate experiment as an explicit list of combinations", async () => {
    const a = await t.tenant();
    const variants = [
      { name: "blue/short" },
      { name: "blue/long", css: ".cta{padding:2em}" },
      { name: "red/short", css: ".cta{background:red}" },
      { name: "red/long", css: ".cta{background:red;padding:2em}" },
    ];
    const res = await a.post("/api/experiments", body({ mode: "multivariate", variants }));
    expect(res.status).toBe(201);
    expect(res.body.mode).toBe("multivariate");
    expect(res.body.weights).toEqual([0.25, 0.25, 0.25, 0.25]);
    expect(res.body.results.control).toBe("blue/short");
    expect(res.body.results.variants.map((v: { name: string }) => v.name)).toEqual(
      variants.map((v) => v.name),
    );
  });
});
