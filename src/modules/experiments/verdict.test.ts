import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../../test/helpers/app.js";
import { formatConfidence } from "../../platform/stats/confidence-format.js";
import { computeResults, type VariantCounts } from "../../platform/stats/results.js";
import { visitorsToDecide } from "../../platform/stats/sequential.js";
import { committed, exposure, processEvents } from "./experiments.testing.js";
import { type VerdictInput, roughly, verdictOf } from "./outcome.js";

const arms = (...c: [number, number][]): VariantCounts[] =>
  c.map(([exposures, conversions], i) => ({ name: i === 0 ? "control" : `v${i}`, exposures, conversions }));

const running = (counts: VariantCounts[], extra: Partial<VerdictInput> = {}) =>
  verdictOf({
    results: computeResults(
      counts,
      counts.map(() => 1 / counts.length),
    ).results,
    status: "running",
    mode: "ab",
    minSample: 100,
    winner: null,
    method: "sequential",
    probabilityBest: null,
    ...extra,
  });

describe("the need in words", () => {
  it("rounds a need up to two significant figures", () => {
    expect([roughly(7), roughly(1234), roughly(1201), roughly(98_001)]).toEqual([
      "7",
      "1,300",
      "1,300",
      "99,000",
    ]);
  });
});

describe("the verdict", () => {
  it("before any exposure: no data, confidence 0", () => {
    const v = running(arms([0, 0], [0, 0]));
    expect(v).toMatchObject({ state: "no_data", confidence: 0, leader: null, moreVisitorsPerVariant: null });
    expect(v.text).toMatch(/No visitors yet/);
  });

  it("a variant ahead but not significant: no winner yet, with visitors per variant to go", () => {
    const v = running(arms([1000, 100], [1000, 130]));
    const m = visitorsToDecide(1000, 100, 1000, 130)!;
    expect(v).toMatchObject({ state: "leading", leader: "v1", moreVisitorsPerVariant: m });
    // One confidence figure: 1 − the always-valid p (0.379), not the Bayesian 98%.
    expect(v.confidence).toBeCloseTo(1 - 0.3789315075857973, 10);
    expect(v.text).toBe(
      `No winner yet — v1 is ahead, not yet significant; about ${roughly(m)} more visitors per variant if the rates hold.`,
    );
  });

  it("the control ahead, equal rates, no conversions", () => {
    expect(running(arms([1000, 130], [1000, 100]))).toMatchObject({ state: "leading", leader: "control" });
    expect(running(arms([1000, 100], [1000, 100])).text).toBe(
      "No winner yet — no difference between the variants so far.",
    );
    expect(running(arms([50, 0], [50, 0])).state).toBe("collecting");
  });

  it("decided: the winner in words, with the figure that decided", () => {
    const v = running(arms([5000, 500], [5000, 700]));
    expect(v.state).toBe("significant");
    expect(v.confidence).toBeGreaterThan(0.95);
    expect(v.text).toBe(`v1 wins with ${formatConfidence(v.confidence)} confidence.`);
    // below the minimum sample it says what is left
    const early = running(arms([5000, 500], [5000, 700]), { minSample: 6000 });
    expect(early.moreVisitorsPerVariant).toBe(1000);
    expect(early.text).toMatch(/completes once every variant has 6,000 visitors \(1,000 more\)/);
    expect(running(arms([5000, 700], [5000, 500])).text).toMatch(
      /^control \(the control\) wins: every variant does worse/,
    );
  });

  it("a sample ratio mismatch gives no verdict", () => {
    const v = running(arms([5000, 500], [3000, 400]));
    expect(v.state).toBe("srm");
    expect(v.text).toMatch(/sample ratio mismatch/);
  });

  it("completed and bandit experiments", () => {
    const done = running(arms([5000, 500], [5000, 700]), { status: "completed", winner: "v1" });
    expect(done).toMatchObject({ state: "won", leader: "v1" });
    expect(done.text).toMatch(/^v1 won with \d+\.\d% confidence \(sequential test\)\.$/);
    expect(
      running(arms([10, 1], [10, 1]), { status: "completed", winner: null, method: "manual" }).text,
    ).toBe("Completed without a winner.");
    const bandit = running(arms([300, 30], [300, 60]), { mode: "bandit", probabilityBest: [0.1, 0.9] });
    expect(bandit).toMatchObject({ state: "bandit", leader: "v1", confidence: 0.9 });
  });
});

describe("one confidence figure", () => {
  it("the banner of a decided experiment says the figure its table shows (not 100%)", () => {
    const v = running(arms([5000, 500], [5000, 700]));
    expect(v.confidence).toBeGreaterThan(0.9995);
    expect(v.confidence).toBeLessThan(1);
    expect(v.text).toBe("v1 wins with 99.9% confidence.");
    const done = running(arms([5000, 500], [5000, 700]), { status: "completed", winner: "v1" });
    expect(done.text).toBe("v1 won with 99.9% confidence (sequential test).");
    const bandit = running(arms([300, 30], [300, 60]), { mode: "bandit", probabilityBest: [0.0004, 0.9996] });
    expect(bandit.text).toMatch(/\(99\.9%\)/);
  });
});

describe("GET /api/experiments/:id results before and after the first exposure", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t.close());

  it("lists every variant with zeros, then counts them, with the verdict", async () => {
    const a = await t.tenant();
    await a.post("/api/conversion-goals", { name: "Signup", eventType: "signup" });
    const created = await a.post("/api/experiments", {
      name: "Headline",
      targetUrl: "/pricing",
      variants: [{ name: "control" }, { name: "blue-headline" }],
    });
    const id = created.body.id as string;
    await a.patch("/api/experiments", { id, status: "running" });
    const before = (await a.get(`/api/experiments/${id}`)).body;
    expect(before.results.variants.map((v: VariantCounts) => [v.name, v.exposures, v.conversions])).toEqual([
      ["control", 0, 0],
      ["blue-headline", 0, 0],
    ]);
    expect(before.results.verdict).toMatchObject({ state: "no_data", confidence: 0 });

    // 10 per arm; 1 conversion in control, 4 in blue-headline
    const events = [];
    for (let i = 0; i < 20; i++) {
      const variant = i < 10 ? "control" : "blue-headline";
      events.push(committed(a, { visitorId: `x${i}`, ...exposure(id, variant) }));
      if (i === 0 || (i >= 10 && i < 14)) events.push(committed(a, { visitorId: `x${i}`, type: "signup" }));
    }
    await processEvents(t.app, events);
    const after = (await a.get(`/api/experiments/${id}`)).body;
    const need = visitorsToDecide(10, 1, 10, 4)!;
    expect(after.results.verdict).toMatchObject({
      state: "leading",
      leader: "blue-headline",
      moreVisitorsPerVariant: Math.max(need, 90),
    });
    expect(after.results.verdict.confidence).toBeCloseTo(1 - after.results.variants[1].sequential.pValue, 12);
  });
});
