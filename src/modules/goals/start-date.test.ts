import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { commitEvents, committed } from "../analytics/analytics.testing.js";
import { paceStatus, parseStart } from "./pace.js";

const DAY = 86_400_000;
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe("the pace rule", () => {
  const goal = { metric: "revenue", target: 60_000, startedAt: 0, deadline: 30 * DAY };

  it("is never on_track with nothing counted once counting has started (its first moment included)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("revenue", "visitors", "conversion_rate", "mrr"),
        fc.integer({ min: 1, max: 60 * DAY }),
        fc.integer({ min: 0, max: 60 * DAY }),
        (metric, deadline, elapsed) => {
          const status = paceStatus({ ...goal, metric, deadline, current: 0 }, elapsed);
          expect(status).not.toBe("on_track");
        },
      ),
    );
  });

  it("at_risk while too early to project, behind after; on_track before counting starts", () => {
    expect(paceStatus({ ...goal, current: 0 }, 60_000)).toBe("at_risk");
    expect(paceStatus({ ...goal, current: 0 }, 2 * DAY)).toBe("behind");
    expect(paceStatus({ ...goal, current: 1 }, 60_000)).toBe("on_track");
    expect(paceStatus({ ...goal, startedAt: DAY, current: 0 }, 0)).toBe("on_track");
  });

  it("a start date is the start of its UTC day; a date-time is itself", () => {
    expect(parseStart("2025-03-01")).toBe(Date.UTC(2025, 2, 1));
    expect(parseStart("2025-03-01T12:30:00Z")).toBe(Date.UTC(2025, 2, 1, 12, 30));
    expect(parseStart("2025-02-30")).toBeNull();
  });
});

describe("goals with a startDate (hand-computed)", () => {
  let t: TestApp;
  let a: Tenant;
  const now = Date.now();
  const deadline = isoDay(now + 20 * DAY);
  beforeAll(async () => {
    t = await startTestApp();
    a = await t.tenant();
    // revenue: 100 ten days ago, 50 three days ago, a refund of 20 yesterday → 130 since day −10
    const s = { projectId: a.projectId, workspaceId: a.workspaceId };
    await commitEvents(t.app, [
      committed(s, { visitorId: "p1", type: "$revenue", data: { revenue: 100 }, timestamp: now - 10 * DAY }),
      committed(s, { visitorId: "p2", type: "$revenue", data: { revenue: 50 }, timestamp: now - 3 * DAY }),
      committed(s, { visitorId: "p2", type: "$revenue", data: { revenue: -20 }, timestamp: now - DAY }),
    ]);
  });
  afterAll(async () => t.close());

  it("counts from its startDate; without one, from its creation", async () => {
    const since = isoDay(now - 5 * DAY);
    const quarter = await a.post("/api/goals", {
      metric: "revenue",
      target: 60_000,
      deadline,
      startDate: since,
    });
    expect(quarter.status).toBe(201);
    expect(quarter.body).toMatchObject({ startDate: since, current: 30 });
    const fresh = await a.post("/api/goals", { metric: "revenue", target: 60_000, deadline });
    expect(fresh.body).toMatchObject({ startDate: fresh.body.createdAt, current: 0 });
    // 0 of 60,000 is not "on track", not even at its first moment
    expect(fresh.body.status).toBe("at_risk");
    const listed = (await a.get("/api/goals")).body as { id: string; startDate: string }[];
    expect(listed.find((g) => g.id === quarter.body.id)?.startDate).toBe(since);
  });

  it("PATCH startDate counts again from there", async () => {
    const g = await a.post("/api/goals", { metric: "revenue", target: 1000, deadline });
    const earlier = await a.patch("/api/goals", { id: g.body.id, startDate: isoDay(now - 11 * DAY) });
    expect(earlier.status).toBe(200);
    expect(earlier.body).toMatchObject({ current: 130, startDate: isoDay(now - 11 * DAY) });
    const at = new Date(now - 2 * DAY).toISOString();
    const later = await a.patch("/api/goals", { id: g.body.id, startDate: at });
    expect(later.body).toMatchObject({ current: -20, startDate: at, status: "behind" });
    // the hourly recompute keeps counting from the same start
    await t.app.worker.drain();
    expect(
      ((await a.get("/api/goals")).body as { id: string; current: number }[]).find((x) => x.id === g.body.id)
        ?.current,
    ).toBe(-20);
  });

  it.each([
    ["yesterday", /^body\.startDate must be an ISO 8601 date/],
    ["2025-02-30", /^body\.startDate must be an ISO 8601 date/],
    [isoDay(now + 30 * DAY), /^body\.startDate must be before the deadline/],
  ])("startDate %s is 400 naming the field", async (startDate, message) => {
    const create = await a.post("/api/goals", { metric: "revenue", target: 10, deadline, startDate });
    expect(create.status).toBe(400);
    expect(create.body).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
    expect(create.body.error).toMatch(message);
    const g = await a.post("/api/goals", { metric: "revenue", target: 10, deadline });
    const patch = await a.patch("/api/goals", { id: g.body.id, startDate });
    expect(patch.status).toBe(400);
    expect(patch.body.error).toMatch(message);
  });
});
