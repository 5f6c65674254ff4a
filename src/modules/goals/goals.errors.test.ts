import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { creationTime } from "../../platform/creation-time.js";
import { type TestApp, startTestApp } from "../../../test/helpers/app.js";

/** A goal must be able to progress: a metric something measures, and a target above zero. */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const soon = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);

describe("POST /api/goals metric", () => {
  it("an unknown metric is 400 naming the field and listing the built-ins and the project's conversion goals", async () => {
    const a = await t.tenant();
    await a.post("/api/conversion-goals", { name: "Demo booked", eventType: "form_submit" });
    await a.post("/api/conversion-goals", { name: "Checkout", eventType: "purchase" });
    const res = await a.post("/api/goals", { metric: "signupz", target: 10, deadline: soon });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
    expect(res.body.error).toMatch(/^body\.metric /);
    expect(res.body.error).toContain('"signupz"');
    for (const builtIn of [
      "visitors",
      "leads",
      "conversions",
      "revenue",
      "conversion_rate",
      "signups",
      "mrr",
    ]) {
      expect(res.body.error).toContain(builtIn);
    }
    expect(res.body.error).toContain("Checkout");
    expect(res.body.error).toContain("Demo booked");
    expect((await a.get("/api/goals")).body).toEqual([]);
  });

  it("says so when the project has no conversion goals", async () => {
    const a = await t.tenant();
    const res = await a.post("/api/goals", { metric: "Checkout", target: 10, deadline: soon });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/no conversion goals/);
  });

  it("accepts every built-in and a conversion goal of the project by name, not another project's", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    await b.post("/api/conversion-goals", { name: "Checkout", eventType: "purchase" });
    for (const metric of ["visitors", "signups", "conversion_rate", "mrr", "payments_revenue"]) {
      expect((await a.post("/api/goals", { metric, target: 10, deadline: soon })).status).toBe(201);
    }
    expect((await a.post("/api/goals", { metric: "Checkout", target: 10, deadline: soon })).status).toBe(400);
    expect((await b.post("/api/goals", { metric: "Checkout", target: 10, deadline: soon })).status).toBe(201);
    // Conversion goal names match as the analytics provider measures them: case and spaces aside.
    expect((await b.post("/api/goals", { metric: "checkout ", target: 10, deadline: soon })).status).toBe(
      201,
    );
  });
});

describe("goal target", () => {
  it.each([0, -5, -0.01])(
    "POST with target %d is 400 naming body.target; nothing is created",
    async (target) => {
      const a = await t.tenant();
      const res = await a.post("/api/goals", { metric: "signups", target, deadline: soon });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
      expect(res.body.error).toMatch(/^body\.target /);
      expect((await a.get("/api/goals")).body).toEqual([]);
      const events = await t.app.db
        .selectFrom("service_events")
        .select("type")
        .where("project_id", "=", a.projectId)
        .execute();
      expect(events.filter((e) => e.type === "goal.reached")).toEqual([]);
    },
  );

  it("PATCH with a target of 0 or below is 400 naming body.target and leaves the goal as it was", async () => {
    const a = await t.tenant();
    const g = await a.post("/api/goals", { metric: "signups", target: 10, deadline: soon });
    for (const target of [0, -1]) {
      const res = await a.patch("/api/goals", { id: g.body.id, target });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
      expect(res.body.error).toMatch(/^body\.target /);
    }
    expect((await a.get("/api/goals")).body[0]).toMatchObject({
      target: 10,
      // nothing counted since its creation: never on track (pace.ts)
      status: "at_risk",
      reachedAt: null,
    });
    expect((await a.patch("/api/goals", { id: g.body.id, target: 0.5 })).status).toBe(200);
  });

  it("a goal whose creation stamp runs ahead of the clock (many records made in one millisecond) is not on track with nothing counted", async () => {
    const a = await t.tenant();
    // Creation stamps never repeat within a process: a burst moves them past the wall clock.
    creationTime(Date.now() + 5_000);
    const g = await a.post("/api/goals", { metric: "signups", target: 10, deadline: soon });
    expect(g.status).toBe(201);
    expect(Date.parse(g.body.createdAt)).toBeGreaterThan(Date.now());
    expect(g.body.status).toBe("at_risk");
  });
});
