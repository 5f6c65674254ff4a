import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { seedFilterProject } from "../analytics/filters/filter-fixture.testing.js";

/** Dashboards: a grid of a project's insights, run together (filter-fixture.testing.ts figures). */
let t: TestApp;
let a: Tenant;
let b: Tenant;
beforeAll(async () => {
  t = await startTestApp();
  a = await t.tenant();
  b = await t.tenant();
  await seedFilterProject(a);
});
afterAll(async () => t.close());

const insight = async (as: Tenant, kind: string, name: string, settings: unknown) => {
  const res = await as.post("/api/insights", { kind, name, settings });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
};
const tile = (insightId: string, x: number, y: number, w = 6, h = 1) => ({ insightId, x, y, w, h });

describe("dashboards", () => {
  it("runs its tiles in grid order with their results; a tile whose cohort is gone shows its error", async () => {
    const all = await insight(a, "summary", "All visitors", { period: "7d" });
    const phones = await insight(a, "summary", "Phones", {
      period: "7d",
      filter: [{ key: "device", op: "is", value: "mobile" }],
    });
    const funnel = await insight(a, "funnel", "Pricing to purchase", {
      steps: [{ eventType: "pageview", urlPattern: "*/pricing*" }, { eventType: "purchase" }],
      period: "7d",
    });
    const cohort = await a.post("/api/cohorts", {
      name: "Temp",
      definition: { conditions: [{ type: "event", event: "purchase" }] },
    });
    const doomed = await insight(a, "summary", "In the cohort", {
      period: "7d",
      filter: [{ key: "cohort", op: "is", value: cohort.body.id }],
    });
    const created = await a.post("/api/dashboards", {
      name: "Weekly",
      description: "the numbers we read on Monday",
      // listed out of order: results come top to bottom, then left to right
      items: [tile(funnel, 0, 1, 12), tile(phones, 6, 0), tile(all, 0, 0), tile(doomed, 0, 2, 4)],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Weekly", shared: null });
    await a.del(`/api/cohorts/${cohort.body.id}`);
    const res = await a.get(`/api/dashboards/${created.body.id}/results`);
    expect(res.status).toBe(200);
    expect(res.body.tiles.map((x: { name: string }) => x.name)).toEqual([
      "All visitors",
      "Phones",
      "Pricing to purchase",
      "In the cohort",
    ]);
    const [t0, t1, t2, t3] = res.body.tiles;
    expect(t0.answer.result).toMatchObject({ visitors: 3, conversions: 2 });
    expect(t1.answer.result).toMatchObject({ visitors: 1, conversions: 1 });
    expect(t2.answer.result.steps.map((s: { count: number }) => s.count)).toEqual([3, 1]);
    expect(t3).toMatchObject({ answer: null, error: { code: "VALIDATION_ERROR" }, x: 0, y: 2, w: 4, h: 1 });
    expect(t3.error.message).toContain("no cohort");
  });

  it("checks the grid: the project's insights only, inside 12 columns, no overlap", async () => {
    const mine = await insight(a, "summary", "Mine", { period: "7d" });
    const theirs = await insight(b, "summary", "Theirs", { period: "7d" });
    const bad = async (items: unknown[], message: string) => {
      const res = await a.post("/api/dashboards", { name: "Bad", items });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", error: message });
    };
    await bad(
      [tile(mine, 0, 0), tile(theirs, 6, 0)],
      `body.items[1].insightId: no insight ${theirs} in this project`,
    );
    await bad(
      [tile(mine, 8, 0, 6)],
      "body.items[0].w: the tile ends past column 12 (x + w must be at most 12)",
    );
    await bad([tile(mine, 0, 0, 6, 2), tile(mine, 3, 1, 6)], "body.items[1] overlaps body.items[0]");
    await bad([{ insightId: mine, x: 0, y: 0, w: 13, h: 1 }], "body.items[0].w must be <= 12");
    await bad([{ insightId: mine, x: 0, y: 0, w: 4 }], "body.items[0].h is required");
    // the same insight twice, side by side, is fine
    const ok = await a.post("/api/dashboards", {
      name: "Twice",
      items: [tile(mine, 0, 0), tile(mine, 6, 0)],
    });
    expect(ok.status).toBe(201);
    const patched = await a.patch(`/api/dashboards/${ok.body.id}`, {
      items: [tile(mine, 0, 0, 12)],
      name: "Once",
    });
    expect(patched.body).toMatchObject({ name: "Once", items: [tile(mine, 0, 0, 12)] });
    expect((await a.patch(`/api/dashboards/${ok.body.id}`, { items: [tile(theirs, 0, 0)] })).status).toBe(
      400,
    );
  });

  it("deleting an insight takes its tiles off every dashboard", async () => {
    const keep = await insight(a, "summary", "Keep", { period: "7d" });
    const drop = await insight(a, "breakdown", "Drop", { by: "channel" });
    const d1 = await a.post("/api/dashboards", { name: "One", items: [tile(keep, 0, 0), tile(drop, 6, 0)] });
    const d2 = await a.post("/api/dashboards", { name: "Two", items: [tile(drop, 0, 0, 12)] });
    expect((await a.del(`/api/insights/${drop}`)).status).toBe(200);
    expect((await a.get(`/api/dashboards/${d1.body.id}`)).body.items).toEqual([tile(keep, 0, 0)]);
    expect((await a.get(`/api/dashboards/${d2.body.id}`)).body.items).toEqual([]);
    expect((await a.get(`/api/dashboards/${d2.body.id}/results`)).body.tiles).toEqual([]);
  });

  it("keeps creation order for dashboards made within one millisecond", async () => {
    const c = await t.tenant();
    const names = Array.from({ length: 25 }, (_, i) => `Quick ${i}`);
    for (const name of names) await c.post("/api/dashboards", { name });
    const listed = (await c.get("/api/dashboards?limit=100")).body.items.map((d: { name: string }) => d.name);
    expect(listed).toEqual([...names].reverse());
  });

  it("lists newest first with pages; another project gets 404 and an empty list", async () => {
    const c = await t.tenant();
    for (const n of ["D1", "D2", "D3"]) await c.post("/api/dashboards", { name: n });
    const p1 = await c.get("/api/dashboards?limit=2");
    expect(p1.body.items.map((d: { name: string }) => d.name)).toEqual(["D3", "D2"]);
    const p2 = await c.get(`/api/dashboards?limit=2&cursor=${p1.body.nextCursor}`);
    expect(p2.body.items.map((d: { name: string }) => d.name)).toEqual(["D1"]);
    expect(p2.body.nextCursor).toBeNull();
    const id = p2.body.items[0].id;
    for (const res of [
      await b.get(`/api/dashboards/${id}`),
      await b.get(`/api/dashboards/${id}/results`),
      await b.patch(`/api/dashboards/${id}`, { name: "x" }),
      await b.post(`/api/dashboards/${id}/share`),
      await b.del(`/api/dashboards/${id}/share`),
      await b.del(`/api/dashboards/${id}`),
    ])
      expect(res.status).toBe(404);
    expect((await b.get("/api/dashboards")).body.items.map((d: { name: string }) => d.name)).not.toContain(
      "D1",
    );
    expect((await c.del(`/api/dashboards/${id}`)).body).toEqual({ id, deleted: true });
    expect((await c.get(`/api/dashboards/${id}`)).status).toBe(404);
  });
});
