import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type Tenant, type TestApp } from "../../../test/helpers/app.js";
import { recomputeBanditWeights } from "./bandit.js";
import { BANDIT_JOB } from "./schema.js";
import { enqueueJob } from "../../platform/jobs/index.js";
import { committed, exposure, processEvents } from "./experiments.testing.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

async function create(a: Tenant, extra: Record<string, unknown> = {}) {
  return (
    await a.post("/api/experiments", {
      name: "Exp",
      targetUrl: "/pricing*",
      variants: [{ name: "control" }, { name: "b", css: "h1{color:red}", js: "window.x=1" }],
      ...extra,
    })
  ).body as { id: string };
}

describe("GET /api/experiments/active", () => {
  it("serves running experiments only, publicly, with CORS, ETag and a short max-age", async () => {
    const a = await t.tenant();
    const running = await create(a, { trafficSplit: 60 });
    await create(a); // draft
    const paused = await create(a);
    await a.patch("/api/experiments", { id: running.id, status: "running" });
    await a.patch("/api/experiments", { id: paused.id, status: "running" });
    await a.patch("/api/experiments", { id: paused.id, status: "paused" });
    const res = await a.get(`/api/experiments/active?key=${a.publicKey}`, {
      as: "none",
      headers: { origin: "https://shop.example" },
    });
    expect(res.status).toBe(200);
    expect(res.headers["access-control-allow-origin"]).toBe("*");
    expect(res.headers["cache-control"]).toBe("public, max-age=5");
    expect(res.headers.etag).toMatch(/^"[\w-]+"$/);
    expect(res.body).toEqual([
      {
        id: running.id,
        targetUrl: "/pricing*",
        mode: "ab",
        trafficSplit: 60,
        weights: [0.5, 0.5],
        variants: [{ name: "control" }, { name: "b", css: "h1{color:red}", js: "window.x=1" }],
      },
    ]);
    const again = await a.get(`/api/experiments/active?key=${a.publicKey}`, {
      as: "none",
      headers: { "if-none-match": String(res.headers.etag) },
    });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
  });

  it("reflects a change made on this node at once (cache invalidation)", async () => {
    const a = await t.tenant();
    const e = await create(a);
    expect((await a.get(`/api/experiments/active?key=${a.publicKey}`, { as: "none" })).body).toEqual([]);
    await a.patch("/api/experiments", { id: e.id, status: "running" });
    const list = (await a.get(`/api/experiments/active?key=${a.publicKey}`, { as: "none" })).body;
    expect(list.map((x: { id: string }) => x.id)).toEqual([e.id]);
    await a.patch("/api/experiments", { id: e.id, status: "completed" });
    expect((await a.get(`/api/experiments/active?key=${a.publicKey}`, { as: "none" })).body).toEqual([]);
  });

  it("answers 401 for an unknown key and 400 without one", async () => {
    const a = await t.tenant();
    const bad = await a.get("/api/experiments/active?key=svc_pk_unknown", { as: "none" });
    expect(bad.status).toBe(401);
    expect(bad.body).toMatchObject({ code: "UNAUTHORIZED", status: 401 });
    const missing = await a.get("/api/experiments/active", { as: "none" });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toContain("key");
  });
});

describe("bandit reweighting", () => {
  it("keeps equal weights during burn-in, then serves Thompson weights with a 1% floor", async () => {
    const a = await t.tenant();
    await a.post("/api/conversion-goals", { name: "Signup", eventType: "signup" });
    const e = await create(a, { mode: "bandit", variants: [{ name: "a" }, { name: "b" }, { name: "c" }] });
    await a.patch("/api/experiments", { id: e.id, status: "running" });
    const rates = { a: 0.02, b: 0.05, c: 0.3 };
    const events = [];
    for (const [arm, rate] of Object.entries(rates)) {
      for (let i = 0; i < 100; i++) {
        events.push(committed(a, { visitorId: `${arm}${i}`, ...exposure(e.id, arm) }));
        if (i < rate * 100) events.push(committed(a, { visitorId: `${arm}${i}`, type: "signup" }));
      }
    }
    await processEvents(
      t.app,
      events.filter((x) => !x.visitorId.startsWith("c")),
    );
    await recomputeBanditWeights(t.app.db);
    expect((await a.get(`/api/experiments/${e.id}`)).body.weights).toEqual([1 / 3, 1 / 3, 1 / 3]);

    await processEvents(
      t.app,
      events.filter((x) => x.visitorId.startsWith("c")),
    );
    await enqueueJob(t.app.db, BANDIT_JOB, {});
    await t.app.worker.drain();
    // A bandit keeps exploiting: it does not auto-complete even at ~100% chance to beat control.
    expect((await a.get(`/api/experiments/${e.id}`)).body.status).toBe("running");
    const weights = (await a.get(`/api/experiments/${e.id}`)).body.weights as number[];
    expect(weights[2]).toBeGreaterThan(0.95);
    expect(Math.min(...weights)).toBeGreaterThanOrEqual(0.01 - 1e-12);
    const active = (await a.get(`/api/experiments/active?key=${a.publicKey}`, { as: "none" })).body;
    expect(active[0].weights).toEqual(weights);

    // The allocation history: equal weights from the start, then the recomputed ones.
    const history = await a.get(`/api/experiments/${e.id}/weights`);
    expect(history.status).toBe(200);
    expect(history.body.variants).toEqual(["a", "b", "c"]);
    expect(history.body.points.map((p: { weights: number[] }) => p.weights)).toEqual([
      [1 / 3, 1 / 3, 1 / 3],
      weights,
    ]);
    const times = history.body.points.map((p: { at: string }) => Date.parse(p.at));
    expect(times[0]).toBeLessThanOrEqual(times[1]);
    // Another workspace cannot read it.
    const other = await t.tenant();
    expect((await other.get(`/api/experiments/${e.id}/weights`)).status).toBe(404);
  });

  it("an A/B test's history is empty: only bandits reallocate", async () => {
    const a = await t.tenant();
    const e = await create(a, { variants: [{ name: "a" }, { name: "b" }] });
    await a.patch("/api/experiments", { id: e.id, status: "running" });
    const history = await a.get(`/api/experiments/${e.id}/weights`);
    expect(history.body).toEqual({ experimentId: e.id, variants: ["a", "b"], points: [] });
  });
});

describe("GET /api/svc-js", () => {
  it("serves the minified snippet under 6 KB gzipped with Cache-Control and ETag", async () => {
    const a = await t.tenant();
    const res = await a.get(`/api/svc-js?key=${a.publicKey}`, { as: "none" });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toContain("application/javascript");
    expect(res.headers["cache-control"]).toMatch(/^public, max-age=\d+$/);
    expect(gzipSync(res.text).length).toBeLessThan(6 * 1024);
    expect(res.text).toContain("/api/experiments/active");
    expect(res.text).not.toContain("import ");
    const again = await a.get(`/api/svc-js?key=${a.publicKey}`, {
      as: "none",
      headers: { "if-none-match": String(res.headers.etag) },
    });
    expect(again.status).toBe(304);
    expect((await a.get("/api/svc-js?key=svc_pk_nope", { as: "none" })).status).toBe(401);
  });
});
