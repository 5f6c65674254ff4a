import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type Tenant, type TestApp } from "../../../test/helpers/app.js";
import { committed, exposure, processEvents } from "./experiments.testing.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

async function goals(a: Tenant) {
  const goal = async (name: string, eventType: string) =>
    (await a.post("/api/conversion-goals", { name, eventType })).body.id as string;
  return {
    purchase: await goal("Purchase", "purchase"),
    newsletter: await goal("Newsletter", "newsletter"),
    ticket: await goal("Support ticket", "ticket"),
  };
}

async function start(a: Tenant, body: Record<string, unknown>) {
  const e = await a.post("/api/experiments", {
    name: "Checkout",
    targetUrl: "/checkout",
    variants: [{ name: "control" }, { name: "b" }],
    ...body,
  });
  expect(e.status).toBe(201);
  await a.patch("/api/experiments", { id: e.body.id, status: "running" });
  return e.body;
}

/** Mean and Welch 95% interval of B − A from raw per-visitor values, two-pass variance. */
function welchReference(a: number[], b: number[]) {
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const varOfMean = (xs: number[]) => {
    const m = mean(xs);
    return xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1) / xs.length;
  };
  const d = mean(b) - mean(a);
  const half = 1.959963984540054 * Math.sqrt(varOfMean(a) + varOfMean(b));
  return { meanA: mean(a), meanB: mean(b), interval: [d - half, d + half] };
}

describe("experiment metrics: primary, secondary, guardrails", () => {
  it("validates metrics: unknown goals, primary against conversionGoalIds, a goal listed twice", async () => {
    const a = await t.tenant();
    const g = await goals(a);
    const base = { name: "X", targetUrl: "/x", variants: [{ name: "control" }, { name: "b" }] };
    const unknown = await a.post("/api/experiments", { ...base, metrics: { secondary: ["cg_nope"] } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toContain("body.metrics.secondary");
    const conflict = await a.post("/api/experiments", {
      ...base,
      conversionGoalIds: [g.newsletter],
      metrics: { primary: g.purchase },
    });
    expect(conflict.status).toBe(400);
    expect(conflict.body.error).toContain("body.metrics.primary");
    const twice = await a.post("/api/experiments", {
      ...base,
      metrics: { secondary: [g.ticket], guardrails: [g.ticket] },
    });
    expect(twice.status).toBe(400);
    const bad = await a.post("/api/experiments", {
      ...base,
      metrics: { guardrails: [{ goal: g.ticket, worseWhen: "up" }] },
    });
    expect(bad.status).toBe(400);

    const ok = await a.post("/api/experiments", {
      ...base,
      metrics: {
        primary: g.purchase,
        secondary: [g.newsletter],
        guardrails: [{ goal: g.ticket, worseWhen: "higher" }],
      },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.conversionGoalIds).toEqual([g.purchase]);
    expect(ok.body.metrics).toEqual({
      primary: g.purchase,
      secondary: [g.newsletter],
      guardrails: [{ goal: g.ticket, worseWhen: "higher" }],
    });
    // PATCH replaces the lists it names and keeps the rest; a bare id means "worse when lower".
    const patched = await a.patch("/api/experiments", {
      id: ok.body.id,
      metrics: { guardrails: [g.ticket] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.metrics).toEqual({
      primary: g.purchase,
      secondary: [g.newsletter],
      guardrails: [{ goal: g.ticket, worseWhen: "lower" }],
    });
  });

  it("fixes the primary goal once the experiment has run; secondary and guardrail goals may change", async () => {
    const a = await t.tenant();
    const g = await goals(a);
    const e = await start(a, { metrics: { primary: g.purchase } });
    const moved = await a.patch("/api/experiments", { id: e.id, metrics: { primary: g.newsletter } });
    expect(moved.status).toBe(409);
    expect(moved.body.code).toBe("CONFLICT");
    expect((await a.patch("/api/experiments", { id: e.id, conversionGoalIds: null })).status).toBe(409);
    // The same primary again (clients resend whole objects) and a new guardrail are accepted.
    const same = await a.patch("/api/experiments", {
      id: e.id,
      conversionGoalIds: [g.purchase],
      metrics: { primary: g.purchase, guardrails: [g.ticket] },
    });
    expect(same.status).toBe(200);
    expect(same.body.metrics.guardrails).toEqual([{ goal: g.ticket, worseWhen: "lower" }]);
  });

  it("counts revenue per exposed visitor, secondary and guardrail goals from ingested events", async () => {
    const a = await t.tenant();
    const g = await goals(a);
    const e = await start(a, {
      metrics: {
        primary: g.purchase,
        secondary: [g.newsletter],
        guardrails: [{ goal: g.ticket, worseWhen: "higher" }],
      },
    });
    // Per-visitor revenue after exposure; a purchase before exposure does not count.
    const revenueA = [0, 20, 0, 35.5, 0, 0, 12];
    const revenueB = [50, 0, 0, 10, 99.99, 0];
    const events = [];
    events.push(committed(a, { visitorId: "a0", type: "purchase", data: { revenue: 500 }, timestamp: 1 }));
    revenueA.forEach((r, i) => {
      events.push(committed(a, { visitorId: `a${i}`, ...exposure(e.id, "control") }));
      if (r > 0) events.push(committed(a, { visitorId: `a${i}`, type: "purchase", data: { revenue: r } }));
      if (i < 2) events.push(committed(a, { visitorId: `a${i}`, type: "newsletter" }));
    });
    revenueB.forEach((_, i) => {
      events.push(committed(a, { visitorId: `b${i}`, ...exposure(e.id, "b") }));
      if (i === 3) events.push(committed(a, { visitorId: `b${i}`, type: "ticket" }));
    });
    await processEvents(t.app, events);
    // Revenue arriving in a later batch, some of it from a visitor who already bought: it adds up.
    const later = revenueB.flatMap((r, i) =>
      r > 0 ? [committed(a, { visitorId: `b${i}`, type: "purchase", data: { revenue: String(r / 2) } })] : [],
    );
    await processEvents(t.app, later);
    await processEvents(t.app, later);

    const res = (await a.get(`/api/experiments/${e.id}`)).body.results;
    const ref = welchReference(revenueA, revenueB);
    expect(res.variants[0].revenuePerVisitor.mean).toBeCloseTo(ref.meanA, 10);
    expect(res.variants[1].revenuePerVisitor.mean).toBeCloseTo(ref.meanB, 10);
    expect(res.variants[1].revenuePerVisitor.interval[0]).toBeCloseTo(ref.interval[0]!, 8);
    expect(res.variants[1].revenuePerVisitor.interval[1]).toBeCloseTo(ref.interval[1]!, 8);
    expect(res.variants[0].revenuePerVisitor.interval).toBeNull();
    // Primary conversions are counted once per visitor, whatever the revenue.
    expect(res.variants.map((v: { conversions: number }) => v.conversions)).toEqual([3, 3]);
    expect(res.secondary).toEqual([
      {
        goal: g.newsletter,
        variants: [
          expect.objectContaining({ name: "control", conversions: 2 }),
          expect.objectContaining({ name: "b", conversions: 0 }),
        ],
      },
    ]);
    expect(res.guardrails).toEqual([{ goal: g.ticket, variant: "b", status: "ok" }]);
    expect(res.decision).toEqual({ method: "sequential", decidedAt: null, winner: null });

    // Erasing a visitor takes its revenue back out of the sums.
    expect((await a.del("/api/identity?visitorId=b4")).status).toBe(200);
    const after = (await a.get(`/api/experiments/${e.id}`)).body.results;
    const without = welchReference(revenueA, revenueB.slice(0, 4).concat(revenueB.slice(5)));
    expect(after.variants[1].exposures).toBe(5);
    expect(after.variants[1].revenuePerVisitor.mean).toBeCloseTo(without.meanB, 8);
    expect(after.variants[1].revenuePerVisitor.interval[1]).toBeCloseTo(without.interval[1]!, 6);
  });

  it("adds a converted visitor's later revenue when the experiment has no other goals", async () => {
    const a = await t.tenant();
    const g = await goals(a);
    const e = await start(a, { conversionGoalIds: [g.purchase] });
    await processEvents(t.app, [
      committed(a, { visitorId: "v", ...exposure(e.id, "b") }),
      committed(a, { visitorId: "v", type: "purchase", data: { revenue: 10 } }),
    ]);
    await processEvents(t.app, [
      committed(a, { visitorId: "v", type: "pageview" }),
      committed(a, { visitorId: "v", type: "newsletter", data: { revenue: 5 } }),
    ]);
    const b = (await a.get(`/api/experiments/${e.id}`)).body.results.variants[1];
    expect(b).toMatchObject({ exposures: 1, conversions: 1 });
    expect(b.revenuePerVisitor.mean).toBe(15);
  });

  it("a failing guardrail keeps a winning variant from completing; a manual stop names no winner", async () => {
    const a = await t.tenant();
    const g = await goals(a);
    const e = await start(a, {
      minSamplePerVariant: 100,
      metrics: { primary: g.purchase, guardrails: [{ goal: g.ticket, worseWhen: "higher" }] },
    });
    const events = [];
    for (let i = 0; i < 400; i++) {
      events.push(committed(a, { visitorId: `c${i}`, ...exposure(e.id, "control") }));
      if (i < 40) events.push(committed(a, { visitorId: `c${i}`, type: "purchase" }));
      if (i < 20) events.push(committed(a, { visitorId: `c${i}`, type: "ticket" }));
      events.push(committed(a, { visitorId: `b${i}`, ...exposure(e.id, "b") }));
      if (i < 160) events.push(committed(a, { visitorId: `b${i}`, type: "purchase" }));
      if (i < 120) events.push(committed(a, { visitorId: `b${i}`, type: "ticket" }));
    }
    await processEvents(t.app, events);
    const running = (await a.get(`/api/experiments/${e.id}`)).body;
    expect(running.status).toBe("running");
    expect(running.results.variants[1].sequential.decided).toBe(true); // 40% against 10%
    expect(running.results.guardrails).toEqual([{ goal: g.ticket, variant: "b", status: "failing" }]);

    const stopped = await a.patch("/api/experiments", { id: e.id, status: "completed" });
    expect(stopped.body).toMatchObject({ status: "completed", winner: null, completionReason: "manual" });
    expect(stopped.body.results.decision).toMatchObject({ method: "manual", winner: null });
    expect(stopped.body.results.decision.decidedAt).toBe(stopped.body.completedAt);
  });

  it("the same experiment without the guardrail completes by the sequential test", async () => {
    const a = await t.tenant();
    const g = await goals(a);
    const e = await start(a, { minSamplePerVariant: 100, metrics: { primary: g.purchase } });
    const events = [];
    for (let i = 0; i < 400; i++) {
      events.push(committed(a, { visitorId: `c${i}`, ...exposure(e.id, "control") }));
      if (i < 40) events.push(committed(a, { visitorId: `c${i}`, type: "purchase" }));
      events.push(committed(a, { visitorId: `b${i}`, ...exposure(e.id, "b") }));
      if (i < 160) events.push(committed(a, { visitorId: `b${i}`, type: "purchase" }));
    }
    await processEvents(t.app, events);
    const done = (await a.get(`/api/experiments/${e.id}`)).body;
    expect(done).toMatchObject({ status: "completed", winner: "b", completionReason: "significance" });
    expect(done.results.decision).toMatchObject({ method: "sequential", winner: "b" });
    // Completed before the method was recorded: the single-look rule named that winner.
    await t.app.db.updateTable("experiments").set({ decision_method: null }).where("id", "=", e.id).execute();
    const legacy = (await a.get(`/api/experiments/${e.id}`)).body;
    expect(legacy.results.decision).toMatchObject({ method: "fixed-horizon", winner: "b" });
  });

  it("bandit results say what their figures mean and carry the weights' history", async () => {
    const a = await t.tenant();
    const e = await start(a, { mode: "bandit" });
    const res = (await a.get(`/api/experiments/${e.id}`)).body.results;
    expect(res.decision).toEqual({ method: "bandit", decidedAt: null, winner: null });
    expect(res.bandit.note).toContain("never completed by significance");
    expect(res.bandit.probabilityBest).toHaveLength(2);
    expect(res.bandit.weightsHistory).toHaveLength(1);
    expect(res.bandit.weightsHistory[0].weights).toEqual([0.5, 0.5]);
    const stopped = (await a.patch("/api/experiments", { id: e.id, status: "completed" })).body;
    expect(stopped.results.decision).toMatchObject({ method: "manual", winner: null });
  });
});
