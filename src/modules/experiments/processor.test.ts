import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type Tenant, type TestApp } from "../../../test/helpers/app.js";
import { committed, exposure, processEvents } from "./experiments.testing.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

async function runningExperiment(a: Tenant, extra: Record<string, unknown> = {}) {
  const e = await a.post("/api/experiments", {
    name: "Exp",
    targetUrl: "/pricing",
    variants: [{ name: "control" }, { name: "b" }],
    ...extra,
  });
  expect(e.status).toBe(201);
  await a.patch("/api/experiments", { id: e.body.id, status: "running" });
  return e.body.id as string;
}

const counts = async (a: Tenant, id: string) =>
  (await a.get(`/api/experiments/${id}`)).body.results.variants.map(
    (v: { exposures: number; conversions: number }) => [v.exposures, v.conversions],
  );

describe("exposure and conversion processor", () => {
  it("records one exposure per visitor and experiment, across batches", async () => {
    const a = await t.tenant();
    const id = await runningExperiment(a);
    await processEvents(t.app, [
      committed(a, { visitorId: "v1", ...exposure(id, "control") }),
      committed(a, { visitorId: "v1", ...exposure(id, "control") }),
      committed(a, { visitorId: "v2", ...exposure(id, "b") }),
    ]);
    await processEvents(t.app, [
      committed(a, { visitorId: "v1", ...exposure(id, "b") }), // a second exposure does not move v1
      committed(a, { visitorId: "v3", ...exposure(id, "b") }),
    ]);
    expect(await counts(a, id)).toEqual([
      [1, 0],
      [2, 0],
    ]);
  });

  it("ignores unknown variants, bots, drafts and other projects' experiments", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    const id = await runningExperiment(a);
    const draft = (
      await a.post("/api/experiments", {
        name: "D",
        targetUrl: "/",
        variants: [{ name: "x" }, { name: "y" }],
      })
    ).body.id;
    await processEvents(t.app, [
      committed(a, { visitorId: "v1", ...exposure(id, "nope") }),
      committed(a, { visitorId: "v2", ...exposure(id, "b"), isBot: true }),
      committed(a, { visitorId: "v3", ...exposure(draft, "x") }),
      committed(b, { visitorId: "v4", ...exposure(id, "b") }),
      committed(a, { visitorId: "v5", type: "$exposure", data: { experimentId: 42 } }),
    ]);
    expect(await counts(a, id)).toEqual([
      [0, 0],
      [0, 0],
    ]);
    expect(await counts(a, draft)).toEqual([
      [0, 0],
      [0, 0],
    ]);
  });

  it("counts the first matching conversion after exposure, once per visitor", async () => {
    const a = await t.tenant();
    await a.post("/api/conversion-goals", { name: "Signup", eventType: "signup" });
    const id = await runningExperiment(a);
    const now = Date.now();
    await processEvents(t.app, [
      committed(a, { visitorId: "early", type: "signup", timestamp: now - 10_000 }), // before exposure
      committed(a, { visitorId: "early", ...exposure(id, "control"), timestamp: now - 5_000 }),
      committed(a, { visitorId: "v1", ...exposure(id, "b"), timestamp: now }),
      committed(a, { visitorId: "v1", type: "pageview", timestamp: now + 1 }),
      committed(a, { visitorId: "v1", type: "signup", timestamp: now + 2 }),
      committed(a, { visitorId: "v1", type: "signup", timestamp: now + 3 }),
      committed(a, { visitorId: "stranger", type: "signup", timestamp: now + 4 }),
    ]);
    await processEvents(t.app, [committed(a, { visitorId: "v1", type: "signup", timestamp: now + 5 })]);
    expect(await counts(a, id)).toEqual([
      [1, 0],
      [1, 1],
    ]);
  });

  it("only counts the experiment's own conversion goals when configured", async () => {
    const a = await t.tenant();
    const signup = (await a.post("/api/conversion-goals", { name: "Signup", eventType: "signup" })).body;
    await a.post("/api/conversion-goals", { name: "Buy", eventType: "purchase" });
    const only = await runningExperiment(a, { conversionGoalIds: [signup.id] });
    const all = await runningExperiment(a);
    await processEvents(t.app, [
      committed(a, { visitorId: "v1", ...exposure(only, "b") }),
      committed(a, { visitorId: "v1", ...exposure(all, "b") }),
      committed(a, { visitorId: "v1", type: "purchase" }),
    ]);
    expect(await counts(a, only)).toEqual([
      [0, 0],
      [1, 0],
    ]);
    expect(await counts(a, all)).toEqual([
      [0, 0],
      [1, 1],
    ]);
  });
});

describe("auto-complete", () => {
  it("completes when the sequential test decides, with the minimum sample, fires experiment.completed and adds belief evidence", async () => {
    const a = await t.tenant();
    await a.post("/api/conversion-goals", { name: "Signup", eventType: "signup" });
    const belief = (await a.post("/api/beliefs", { statement: "B is better" })).body;
    const id = await runningExperiment(a, { beliefId: belief.id, minSamplePerVariant: 80 });
    const events = [];
    for (let i = 0; i < 80; i++) {
      events.push(committed(a, { visitorId: `c${i}`, ...exposure(id, "control") }));
      if (i < 8) events.push(committed(a, { visitorId: `c${i}`, type: "signup" }));
      events.push(committed(a, { visitorId: `b${i}`, ...exposure(id, "b") }));
      if (i < 48) events.push(committed(a, { visitorId: `b${i}`, type: "signup" }));
    }
    // Below the minimum sample nothing is decided.
    await processEvents(t.app, events.slice(0, 100));
    expect((await a.get(`/api/experiments/${id}`)).body.status).toBe("running");
    await processEvents(t.app, events.slice(100));
    const e = (await a.get(`/api/experiments/${id}`)).body;
    expect(e).toMatchObject({ status: "completed", winner: "b", completionReason: "significance" });
    expect(e.confidence).toBeGreaterThan(0.99);
    expect(e.results.variants[1]).toMatchObject({ exposures: 80, conversions: 48, conversionRate: 0.6 });
    expect(e.results.variants[1].uplift).toBeCloseTo(5, 10); // (0.6 − 0.1) / 0.1
    // The interval is a [low, high] pair around the uplift (serialized through the response schema).
    const [low, high] = e.results.variants[1].upliftInterval;
    expect(e.results.variants[1].upliftInterval).toHaveLength(2);
    expect(low).toBeLessThan(5);
    expect(high).toBeGreaterThan(5);
    const completed = await t.app.db
      .selectFrom("service_events")
      .selectAll()
      .where("project_id", "=", a.projectId)
      .where("type", "=", "experiment.completed")
      .execute();
    expect(completed).toHaveLength(1);
    expect(JSON.parse(completed[0]!.data)).toMatchObject({
      id,
      winner: "b",
      completionReason: "significance",
    });

    await t.app.worker.drain();
    await t.app.worker.drain(); // a rerun of the job must not add a second entry
    const after = (await a.get("/api/beliefs")).body.find((b: { id: string }) => b.id === belief.id);
    expect(after.evidence).toHaveLength(1);
    expect(after.evidence[0]).toMatchObject({
      type: "experiment",
      experimentId: id,
      sampleSize: 160,
      method: "sequential_uplift",
    });
    expect(e.results.decision).toMatchObject({ method: "sequential", winner: "b" });
    expect(e.results.decision.decidedAt).toBe(e.completedAt);
    // the uplift over the standard error the confidence sequence implies, over 5 (evidence.ts)
    const [sLow, sHigh] = e.results.variants[1].sequential.interval;
    expect(after.evidence[0].delta).toBeCloseTo(5 / ((sHigh - sLow) / (2 * 1.959963984540054)) / 5, 10);
    expect(after.evidence[0].delta).toBeLessThan(1); // the fixed-horizon z (7.8) would cap at 1
    expect(after.confidence).toBeGreaterThan(0.5);
    // Completed experiments stop counting.
    await processEvents(t.app, [committed(a, { visitorId: "late", ...exposure(id, "b") })]);
    expect((await a.get(`/api/experiments/${id}`)).body.results.totalExposures).toBe(160);
  });

  it("declares the control the winner when the sequential test finds every variant worse", async () => {
    const a = await t.tenant();
    await a.post("/api/conversion-goals", { name: "Signup", eventType: "signup" });
    const id = await runningExperiment(a, { minSamplePerVariant: 80 });
    const events = [];
    for (let i = 0; i < 80; i++) {
      events.push(committed(a, { visitorId: `c${i}`, ...exposure(id, "control") }));
      if (i < 48) events.push(committed(a, { visitorId: `c${i}`, type: "signup" }));
      events.push(committed(a, { visitorId: `b${i}`, ...exposure(id, "b") }));
    }
    await processEvents(t.app, events);
    const e = (await a.get(`/api/experiments/${id}`)).body;
    expect(e).toMatchObject({ status: "completed", winner: "control" });
    expect(e.confidence).toBeLessThan(0.05);
  });
});
