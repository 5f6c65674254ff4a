import { describe, expect, it } from "vitest";
import { median, type SimulationOptions, simulateExperiments } from "./simulation.testing.js";

// Seeded, so the counts are exact; the thresholds say what the counts mean and leave room for a
// different seed (seeds 1–3 gave 3–7 sequential and 96–104 single-look false completions of 200,
// and 93–95 of 100 variant wins at a 20% lift). The full-size figures are in bench/README.md
// (bench/experiments/aa-simulation.bench.ts).
const aa: Omit<SimulationOptions, "rule"> = {
  runs: 200,
  baseRate: 0.1,
  relativeLift: 0,
  maxPerArm: 5000,
  batchPerArm: 100,
  seed: 17,
};

describe("auto-completion simulation", () => {
  it("is deterministic for a seed", () => {
    const opts = { ...aa, runs: 20, rule: "fixed-horizon" as const };
    expect(simulateExperiments(opts)).toEqual(simulateExperiments(opts));
    expect(simulateExperiments({ ...opts, seed: 18 })).not.toEqual(simulateExperiments(opts));
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(median([])).toBeNull();
  });

  it("the sequential rule completes at most 5% of A/A tests checked after every batch", () => {
    const r = simulateExperiments({ ...aa, rule: "sequential" });
    expect(r.falseCompletions).toBe(r.completed);
    expect(r.falseCompletionRate).toBeLessThanOrEqual(0.05);
    expect(r.falseCompletions).toBe(5);
    expect(r.visitorsPerArmAtDecision).toHaveLength(r.completed);
  });

  it("the single-look rule checked after every batch completes far more of them", () => {
    const r = simulateExperiments({ ...aa, rule: "fixed-horizon" });
    expect(r.falseCompletionRate).toBeGreaterThan(0.35);
    expect(r.falseCompletions).toBe(106);
  });

  it("with a 20% true lift the sequential rule names the variant in most runs", () => {
    const r = simulateExperiments({
      ...aa,
      runs: 100,
      relativeLift: 0.2,
      maxPerArm: 10_000,
      rule: "sequential",
    });
    expect(r.winnerVariant / r.runs).toBeGreaterThanOrEqual(0.8);
    expect(r.falseCompletions).toBe(0);
    expect(r.winnerVariant).toBe(94);
    expect(r.medianVisitorsPerArmToDecision).toBe(4700);
  });
});
