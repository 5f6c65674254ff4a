import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { seedFilterProject } from "../analytics/filters/filter-fixture.testing.js";

/** Saved insights: each kind answers what its report endpoint answers (filter-fixture.testing.ts figures). */
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

const mobile = [{ key: "device", op: "is", value: "mobile" }];
const q = (filter: unknown) => encodeURIComponent(JSON.stringify(filter));

async function save(kind: string, settings: unknown, name = `${kind} insight`) {
  const res = await a.post("/api/insights", { kind, name, settings });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; kind: string; settings: Record<string, unknown> };
}
const results = async (id: string, as: Tenant = a) => {
  const res = await as.get(`/api/insights/${id}/results`);
  return res;
};

describe("an insight answers what its report answers", () => {
  it("summary with a filter: one mobile visitor and the purchase (hand-computed), as the endpoint says", async () => {
    const ins = await save("summary", { period: "7d", filter: mobile });
    expect(ins.settings).toEqual({ period: "7d", filter: mobile });
    const res = await results(ins.id);
    expect(res.status).toBe(200);
    expect(res.body.kind).toBe("summary");
    expect(res.body.result).toMatchObject({ visitors: 1, conversions: 1, leads: 0 });
    const direct = await a.get(`/api/analytics/summary?period=7d&filter=${q(mobile)}`);
    expect(res.body.result).toEqual(direct.body);
  });

  it("timeseries, breakdown, retention and attribution equal their endpoints", async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ["timeseries", { period: "7d", interval: "day" }, "/api/analytics/timeseries?period=7d&interval=day"],
      ["breakdown", { by: "device", period: "7d" }, "/api/analytics/breakdown?by=device&period=7d"],
      ["retention", { period: "7d", interval: "day" }, "/api/analytics/retention?period=7d&interval=day"],
      [
        "attribution",
        { model: "first_touch", period: "7d" },
        "/api/attribution/summary?model=first_touch&period=7d",
      ],
      [
        "attribution",
        { model: "linear", period: "7d", by: "source" },
        "/api/attribution/summary?model=linear&period=7d&by=source",
      ],
    ];
    for (const [kind, settings, url] of cases) {
      const ins = await save(kind, settings);
      const res = await results(ins.id);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ kind, result: (await a.get(url)).body });
    }
    // the breakdown by device, by hand: desktop (laptop, mac) 2 visitors, mobile 1 with the purchase
    const device = await save("breakdown", { by: "device", period: "7d" });
    const rows = (await results(device.id)).body.result.rows.map(
      (r: { key: string; visitors: number; conversions: number }) => [r.key, r.visitors, r.conversions],
    );
    expect(rows).toEqual([
      ["desktop", 2, 0],
      ["mobile", 1, 1],
      ["(none)", 0, 1],
    ]);
  });

  it("funnel and paths (POST reports) equal their endpoints", async () => {
    const funnel = {
      steps: [{ eventType: "pageview", urlPattern: "*/pricing*" }, { eventType: "purchase" }],
      period: "7d",
    };
    const f = await save("funnel", funnel);
    const fr = await results(f.id);
    expect(fr.body.result.steps.map((s: { count: number }) => s.count)).toEqual([3, 1]);
    expect(fr.body.result).toEqual((await a.post("/api/analytics/funnel", funnel)).body);
    const paths = { start: { event: "pageview", page: "/pricing" }, steps: 2, period: "7d" };
    const p = await save("paths", paths);
    const pr = await results(p.id);
    expect(pr.body.result.sessions).toBe(3);
    expect(pr.body.result).toEqual((await a.post("/api/analytics/paths", paths)).body);
  });

  it("trends equals its endpoint (6 pageviews, 1 purchase by hand); a bad formula is refused when saved", async () => {
    const trends = {
      series: [{ event: "pageview" }, { event: "purchase" }],
      formulas: [{ expression: "B / A * 100" }],
      period: "7d",
      interval: "day",
    };
    const ins = await save("trends", trends);
    const res = await results(ins.id);
    expect(res.status).toBe(200);
    expect(res.body.kind).toBe("trends");
    const totals = res.body.result.series.map((s: { total: number }) => s.total);
    expect(totals).toEqual([6, 1]);
    expect(res.body.result.formulas[0].total).toBeCloseTo((1 / 6) * 100, 4);
    expect(res.body.result).toEqual((await a.post("/api/analytics/trends", trends)).body);
    const bad = await a.post("/api/insights", {
      kind: "trends",
      name: "x",
      settings: { ...trends, formulas: [{ expression: "A / Q" }] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/formulas\[0\]\.expression: .*Q/);
  });
});

describe("CRUD", () => {
  it("lists newest first, a page at a time, filtered by kind; renames and replaces settings", async () => {
    const c = await t.tenant();
    const ids: string[] = [];
    for (const n of [1, 2, 3])
      ids.push(
        (await c.post("/api/insights", { kind: "summary", name: `S${n}`, settings: { period: "7d" } })).body
          .id,
      );
    await c.post("/api/insights", { kind: "breakdown", name: "B", settings: { by: "channel" } });
    const p1 = await c.get("/api/insights?kind=summary&limit=2");
    expect(p1.body.items.map((i: { name: string }) => i.name)).toEqual(["S3", "S2"]);
    const p2 = await c.get(`/api/insights?kind=summary&limit=2&cursor=${p1.body.nextCursor}`);
    expect(p2.body).toEqual({ items: [expect.objectContaining({ name: "S1" })], nextCursor: null });
    expect((await c.get("/api/insights")).body.items).toHaveLength(4);
    expect((await c.get("/api/insights", { as: "member" })).body.items).toHaveLength(4);

    const patched = await c.patch(`/api/insights/${ids[0]}`, {
      name: "Renamed",
      settings: { period: "30d" },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: "Renamed", kind: "summary", settings: { period: "30d" } });
    expect(patched.body.updatedAt > patched.body.createdAt).toBe(true);
    expect((await c.get(`/api/insights/${ids[0]}`)).body.name).toBe("Renamed");
    expect(await c.del(`/api/insights/${ids[0]}`)).toMatchObject({
      status: 200,
      body: { id: ids[0], deleted: true },
    });
    expect((await c.get(`/api/insights/${ids[0]}`)).status).toBe(404);
  });

  it("refuses bad input with 400 naming the field", async () => {
    const bad = async (body: unknown, message: string | RegExp) => {
      const res = await a.post("/api/insights", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
      expect(res.body.error).toMatch(message);
    };
    await bad({ kind: "pie", name: "x", settings: {} }, /body\.kind must be one of summary, timeseries/);
    await bad({ kind: "breakdown", name: "x", settings: {} }, "body.settings.by is required");
    await bad(
      { kind: "breakdown", name: "x", settings: { by: "colour" } },
      /body\.settings\.by must be one of/,
    );
    await bad({ kind: "summary", name: "", settings: {} }, "body.name is required");
    await bad(
      { kind: "summary", name: "x", settings: { period: "custom", from: "2025-01-01" } },
      "body.settings.to is required when period is custom",
    );
    await bad(
      { kind: "summary", name: "x", settings: { period: "custom", from: "2025-02-01", to: "2025-01-01" } },
      "body.settings.from must not be after body.settings.to",
    );
    await bad(
      { kind: "summary", name: "x", settings: { filter: [{ key: "device", op: "is" }] } },
      /body\.settings\.filter\[0\]\.value/,
    );
    await bad(
      { kind: "summary", name: "x", settings: { colour: "red" } },
      "body.settings.colour is not allowed",
    );
    await bad(
      { kind: "funnel", name: "x", settings: { steps: [{ eventType: "a" }] } },
      "body.settings.steps must hold at least 2 items",
    );
    const ins = await save("breakdown", { by: "channel" });
    const patch = await a.patch(`/api/insights/${ins.id}`, { settings: { by: "nowhere" } });
    expect(patch.status).toBe(400);
    expect(patch.body.error).toMatch(/^body\.settings\.by must be one of/);
    const kind = await a.patch(`/api/insights/${ins.id}`, { kind: "summary" });
    expect(kind.body.error).toBe("body.kind is not allowed");
    expect((await a.get("/api/insights?cursor=nonsense")).status).toBe(400);
  });

  it("another project's insight is 404 everywhere, and its list holds only its own", async () => {
    const ins = await save("summary", { period: "7d" }, "private");
    for (const res of [
      await b.get(`/api/insights/${ins.id}`),
      await b.get(`/api/insights/${ins.id}/results`),
      await b.patch(`/api/insights/${ins.id}`, { name: "mine now" }),
      await b.del(`/api/insights/${ins.id}`),
    ])
      expect(res).toMatchObject({ status: 404, body: { code: "NOT_FOUND", status: 404 } });
    expect((await b.get("/api/insights")).body.items).toEqual([]);
    expect((await a.get(`/api/insights/${ins.id}`)).body.name).toBe("private");
  });

  it("a filter naming a deleted cohort: the insight answers 400 naming the condition", async () => {
    const cohort = await a.post("/api/cohorts", {
      name: "Buyers",
      definition: { conditions: [{ type: "event", event: "purchase" }] },
    });
    const ins = await save("summary", {
      period: "7d",
      filter: [{ key: "cohort", op: "is", value: cohort.body.id }],
    });
    expect((await results(ins.id)).body.result.visitors).toBe(1);
    await a.del(`/api/cohorts/${cohort.body.id}`);
    const res = await results(ins.id);
    expect(res.status).toBe(400);
    // the report endpoints' own wording (docs/decisions/identity-analytics.md)
    expect(res.body.error).toBe(`filter[0].value: no cohort ${cohort.body.id} in this project`);
  });
});
