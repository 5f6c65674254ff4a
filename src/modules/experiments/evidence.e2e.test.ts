import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../../test/helpers/app.js";
import { committed, exposure, processEvents } from "./test-events.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe("belief evidence from a completed experiment", () => {
  it("a 200% uplift on 150 visitors per arm moves a 0.5 belief modestly, not to 0.999", async () => {
    const a = await t.tenant();
    await a.post("/api/conversion-goals", { name: "Signup", eventType: "signup" });
    const belief = (await a.post("/api/beliefs", { statement: "The green button converts better" })).body;
    const e = await a.post("/api/experiments", {
      name: "Green",
      targetUrl: "/pricing",
      variants: [{ name: "control" }, { name: "green" }],
      beliefId: belief.id,
      minSamplePerVariant: 150,
    });
    await a.patch("/api/experiments", { id: e.body.id, status: "running" });
    const events = [];
    for (let i = 0; i < 150; i++) {
      events.push(committed(a, { visitorId: `c${i}`, ...exposure(e.body.id, "control") }));
      if (i < 8) events.push(committed(a, { visitorId: `c${i}`, type: "signup" }));
      events.push(committed(a, { visitorId: `g${i}`, ...exposure(e.body.id, "green") }));
      if (i < 24) events.push(committed(a, { visitorId: `g${i}`, type: "signup" }));
    }
    await processEvents(t.app, events);
    const done = (await a.get(`/api/experiments/${e.body.id}`)).body;
    expect(done).toMatchObject({ status: "completed", winner: "green" });
    expect(done.results.variants[1].uplift).toBeCloseTo(2, 10); // 16% against 5.33%
    await t.app.worker.drain();

    const after = (await a.get(`/api/beliefs/${belief.id}`)).body;
    expect(after.evidence).toHaveLength(1);
    expect(after.confidence).toBeGreaterThan(0.8);
    expect(after.confidence).toBeLessThan(0.95);
    expect(after.evidence[0]).toMatchObject({
      type: "experiment",
      experimentId: e.body.id,
      sampleSize: 300,
      method: "standardised_uplift",
      confidenceBefore: 0.5,
    });
    // z ≈ 3.04 (interval 0.75 … 3.25 around the uplift of 2): delta = z / 5
    expect(after.evidence[0].delta).toBeCloseTo(0.608, 2);
  });
});
