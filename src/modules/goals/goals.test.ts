import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { registerGoalMetricProvider, scheduleGoalRecompute } from "./service.js";

let t: TestApp;
// A metric source the test controls, plugged in through the real provider mechanism.
const signups = new Map<string, number>();
beforeAll(async () => {
  t = await startTestApp();
  registerGoalMetricProvider(
    t.app.deps,
    async (_db, project, metric) => (metric === "test_signups" ? signups.get(project.id) : undefined),
    ["test_signups"],
  );
});
afterAll(async () => t.close());

const soon = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);

describe("goals", () => {
  it("creates, lists, patches and deletes a goal", async () => {
    const a = await t.tenant();
    const created = await a.post("/api/goals", {
      metric: "signups",
      target: 100,
      deadline: soon,
      description: "Q4",
      unit: "users",
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      metric: "signups",
      target: 100,
      current: 0,
      deadline: soon,
      // 0 counted since a moment ago: at risk, never on track (pace.ts)
      status: "at_risk",
      unit: "users",
    });
    const list = await a.get("/api/goals");
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toMatchObject({ id: created.body.id, current: 0 });
    const patched = await a.patch("/api/goals", { id: created.body.id, target: 50, status: "at_risk" });
    expect(patched.body).toMatchObject({ target: 50, status: "at_risk", statusSource: "manual" });
    const del = await a.del(`/api/goals?id=${created.body.id}`);
    expect(del.body).toEqual({ id: created.body.id, deleted: true });
    expect((await a.get("/api/goals")).body).toEqual([]);
  });

  it.each([
    [{ target: 10, deadline: soon }, /metric/],
    [{ metric: "x", deadline: soon }, /target/],
    [{ metric: "x", target: "lots", deadline: soon }, /target/],
    [{ metric: "x", target: 10 }, /deadline/],
    [{ metric: "x", target: 10, deadline: "2026-02-30" }, /deadline/],
    [{ metric: "x", target: 10, deadline: "next friday" }, /deadline/],
  ])("POST %j is a 400 naming the field", async (body, field) => {
    const a = await t.tenant();
    const res = await a.post("/api/goals", body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
    expect(res.body.error).toMatch(field);
  });

  it("PATCH refuses a status outside the four values, and an unknown id is 404", async () => {
    const a = await t.tenant();
    const g = await a.post("/api/goals", { metric: "signups", target: 10, deadline: soon });
    const bad = await a.patch("/api/goals", { id: g.body.id, status: "great" });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/status/);
    expect((await a.patch("/api/goals", { id: "goal_nope", target: 3 })).status).toBe(404);
    expect((await a.del("/api/goals?id=goal_nope")).status).toBe(404);
    expect((await a.del("/api/goals")).status).toBe(400);
  });

  it("401 without credentials; another workspace's goal is 404", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    const g = await b.post("/api/goals", { metric: "signups", target: 10, deadline: soon });
    expect((await a.get("/api/goals", { as: "none" })).status).toBe(401);
    expect(
      (await a.get("/api/goals", { as: "none", headers: { "x-api-key": "svc_key_wrong" } })).status,
    ).toBe(401);
    expect((await a.patch("/api/goals", { id: g.body.id, target: 1 })).status).toBe(404);
    expect((await a.del(`/api/goals?id=${g.body.id}`)).status).toBe(404);
    expect(
      (await a.get("/api/goals", { as: "admin", headers: { "x-project-id": b.projectId } })).status,
    ).toBe(404);
    // b's goal is untouched
    expect((await b.get("/api/goals")).body[0].target).toBe(10);
  });

  it("a session acts on the workspace's first project, or the one named by x-project-id", async () => {
    const a = await t.tenant();
    await a.post("/api/goals", { metric: "signups", target: 10, deadline: soon });
    expect((await a.get("/api/goals", { as: "member" })).body).toHaveLength(1);
    const p2 = await a.post("/api/projects", { name: "Second" }, { as: "admin" });
    expect(
      (await a.get("/api/goals", { as: "admin", headers: { "x-project-id": p2.body.id } })).body,
    ).toEqual([]);
  });

  it("tracks progress from providers and fires goal.reached exactly once", async () => {
    const a = await t.tenant();
    const g = await a.post("/api/goals", { metric: "test_signups", target: 10, deadline: soon });
    const project = { id: a.projectId, workspaceId: a.workspaceId };
    signups.set(a.projectId, 4);
    await scheduleGoalRecompute(t.app.db, project);
    await t.app.worker.drain();
    expect((await a.get("/api/goals")).body[0]).toMatchObject({ current: 4 });
    signups.set(a.projectId, 12);
    await scheduleGoalRecompute(t.app.db, project);
    await t.app.worker.drain();
    const reached = (await a.get("/api/goals")).body[0];
    expect(reached).toMatchObject({ current: 12, status: "completed" });
    expect(reached.reachedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    signups.set(a.projectId, 15);
    await scheduleGoalRecompute(t.app.db, project);
    await t.app.worker.drain();
    await a.patch("/api/goals", { id: g.body.id, target: 11 });
    const events = await t.app.db
      .selectFrom("service_events")
      .selectAll()
      .where("project_id", "=", a.projectId)
      .execute();
    const fired = events.filter((e) => e.type === "goal.reached");
    expect(fired).toHaveLength(1);
    expect(JSON.parse(fired[0]!.data)).toMatchObject({ id: g.body.id, target: 10 });
  });
});

describe("conversion goals", () => {
  it("creates, lists and deletes; duplicate names are 409", async () => {
    const a = await t.tenant();
    const c = await a.post("/api/conversion-goals", {
      name: "Checkout",
      eventType: "purchase",
      urlPattern: "/checkout/*",
      conditions: { plan: "pro", amount: { gte: 10 } },
    });
    expect(c.status).toBe(201);
    expect(c.body).toMatchObject({
      name: "Checkout",
      eventType: "purchase",
      urlPattern: "/checkout/*",
      conditions: { plan: "pro" },
    });
    expect((await a.post("/api/conversion-goals", { name: "Checkout", eventType: "x" })).status).toBe(409);
    expect((await a.get("/api/conversion-goals")).body).toHaveLength(1);
    expect((await a.del(`/api/conversion-goals?id=${c.body.id}`)).body).toEqual({
      id: c.body.id,
      deleted: true,
    });
    expect((await a.del(`/api/conversion-goals?id=${c.body.id}`)).status).toBe(404);
  });

  it("PATCH changes the definition for the next event and carries goals that track it by name", async () => {
    const a = await t.tenant();
    const c = await a.post("/api/conversion-goals", {
      name: "Checkout",
      eventType: "purchase",
      urlPattern: "/checkout/*",
      conditions: { plan: "pro" },
    });
    await a.post("/api/conversion-goals", { name: "Signup", eventType: "signup" });
    const goal = await a.post("/api/goals", { metric: "Checkout", target: 5, deadline: soon });
    expect(goal.status).toBe(201);

    const patched = await a.patch("/api/conversion-goals", {
      id: c.body.id,
      name: "Paid order",
      eventType: "order_paid",
      urlPattern: null,
      conditions: null,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      id: c.body.id,
      name: "Paid order",
      eventType: "order_paid",
      urlPattern: null,
      conditions: null,
    });
    expect((await a.get("/api/conversion-goals")).body.map((g: { name: string }) => g.name).sort()).toEqual([
      "Paid order",
      "Signup",
    ]);
    const goals = (await a.get("/api/goals")).body as { id: string; metric: string }[];
    expect(goals.find((g) => g.id === goal.body.id)?.metric).toBe("Paid order");

    // The next event of the new type is a conversion.
    const sent = await a.post(
      "/api/events",
      { projectKey: a.publicKey, visitorId: "v1", type: "order_paid", url: "https://shop.example/done" },
      { as: "none", headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0" } },
    );
    expect(sent.status).toBe(200);
    const summary = await a.get("/api/analytics/summary", { query: { period: "7d" } });
    expect(summary.body.conversions).toBe(1);

    // Errors: a taken name, an unknown id, nothing to change, another workspace.
    expect((await a.patch("/api/conversion-goals", { id: c.body.id, name: "Signup" })).status).toBe(409);
    expect((await a.patch("/api/conversion-goals", { id: "cgoal_nope", name: "x" })).status).toBe(404);
    expect((await a.patch("/api/conversion-goals", { id: c.body.id })).status).toBe(400);
    const b = await t.tenant();
    expect((await b.patch("/api/conversion-goals", { id: c.body.id, name: "mine" })).status).toBe(404);
  });

  it("another workspace's conversion goals are invisible and 404; no credentials is 401", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    const c = await b.post("/api/conversion-goals", { name: "Signup", eventType: "signup" });
    expect((await a.get("/api/conversion-goals")).body).toEqual([]);
    expect((await a.del(`/api/conversion-goals?id=${c.body.id}`)).status).toBe(404);
    expect((await b.get("/api/conversion-goals")).body).toHaveLength(1);
    expect(
      (await a.post("/api/conversion-goals", { name: "x", eventType: "y" }, { as: "none" })).status,
    ).toBe(401);
  });

  it.each([
    [{ eventType: "purchase" }, /name/],
    [{ name: "x" }, /eventType/],
    [{ name: "x", eventType: "p", conditions: "plan=pro" }, /conditions/],
    [{ name: "x", eventType: "p", conditions: { amount: { between: [1, 2] } } }, /conditions/],
  ])("POST %j is a 400", async (body, field) => {
    const a = await t.tenant();
    const res = await a.post("/api/conversion-goals", body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(field);
  });
});
