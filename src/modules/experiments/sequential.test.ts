import { describe, expect, it } from "vitest";
import { computeResults, type GoalCounts } from "../../platform/stats/results.js";
import { decideOnStop, decideWinner, decideWinnerFixedHorizon } from "./outcome.js";

// The mSPRT's reference values (p = 0.3789 on 1000 per arm, 0.0335 on 5000) are checked in
// platform/stats/stats.test.ts; here, the rules that decide with them.

describe("the automatic rule: the sequential test (mSPRT)", () => {
  it("is stricter than the single-look test: p = 0.036 there is not a decision here", () => {
    const { results } = computeResults(
      [
        { name: "control", exposures: 1000, conversions: 100 },
        { name: "b", exposures: 1000, conversions: 130 },
      ],
      [0.5, 0.5],
    );
    const b = results.variants[1]!;
    expect(b.pValue).toBeLessThan(0.05);
    expect(b.sequential).toMatchObject({ decided: false });
    expect(b.sequential!.pValue).toBeCloseTo(0.3789315075857973, 10);
    // The relative sequence is the absolute one over the control's rate.
    expect(b.sequential!.interval![0]).toBeCloseTo(-0.1451796210226778, 9);
    expect(b.sequential!.chanceToBeatControl).toBeCloseTo(1 - 0.3789315075857973 / 2, 10);
    expect(decideWinner(results, 100)).toBeNull();
    expect(decideWinnerFixedHorizon(results, 100)).toBe(1);
    expect(decideOnStop(results, 100, "ab", [0.5, 0.5])).toEqual({ winner: 1, method: "fixed-horizon" });
  });

  it("decides for the variant, for the control, and not below the minimum sample", () => {
    const better = computeResults(
      [
        { name: "control", exposures: 5000, conversions: 500 },
        { name: "b", exposures: 5000, conversions: 600 },
      ],
      [0.5, 0.5],
    ).results;
    expect(better.variants[1]!.sequential!.decided).toBe(true);
    expect(decideWinner(better, 100)).toBe(1);
    expect(decideWinner(better, 5001)).toBeNull();
    expect(decideOnStop(better, 100, "ab", [0.5, 0.5])).toEqual({ winner: 1, method: "sequential" });
    const worse = computeResults(
      [
        { name: "control", exposures: 5000, conversions: 600 },
        { name: "b", exposures: 5000, conversions: 500 },
      ],
      [0.5, 0.5],
    ).results;
    expect(decideWinner(worse, 100)).toBe(0);
  });

  it("adjusts across challengers (Holm on the always-valid p-values)", () => {
    const counts = [
      { name: "control", exposures: 5000, conversions: 500 },
      { name: "b", exposures: 5000, conversions: 600 },
      { name: "c", exposures: 5000, conversions: 500 },
    ];
    const { results } = computeResults(counts, [1 / 3, 1 / 3, 1 / 3]);
    // b's raw always-valid p is 0.0335; with two comparisons Holm doubles the smallest: 0.067.
    expect(results.variants[1]!.sequential!.pValue).toBeCloseTo(2 * 0.03348600165745386, 10);
    expect(results.variants[1]!.sequential!.decided).toBe(false);
    expect(decideWinner(results, 100)).toBeNull();
  });
});

describe("guardrails", () => {
  const counts = [
    { name: "control", exposures: 5000, conversions: 500 },
    { name: "b", exposures: 5000, conversions: 600 },
  ];
  const guardrail = (conversions: number[], worseWhen: "lower" | "higher" = "lower"): GoalCounts => ({
    goal: "cg_refund_free",
    role: "guardrail",
    worseWhen,
    conversions,
  });

  it("a significantly worse guardrail fails and blocks that variant's automatic win", () => {
    const { results } = computeResults(counts, [0.5, 0.5], [guardrail([4000, 3800])]);
    expect(results.guardrails).toEqual([{ goal: "cg_refund_free", variant: "b", status: "failing" }]);
    expect(results.variants[1]!.sequential!.decided).toBe(true);
    expect(decideWinner(results, 100)).toBeNull();
    expect(decideOnStop(results, 100, "ab", [0.5, 0.5])).toEqual({ winner: null, method: "manual" });
  });

  it("warns when only the single-look test sees harm, and reads the direction", () => {
    const warning = computeResults(counts, [0.5, 0.5], [guardrail([4000, 3910])]).results;
    expect(warning.guardrails[0]!.status).toBe("warning");
    expect(decideWinner(warning, 100)).toBe(1);
    // The same drop on a goal where higher is worse (say, refunds) is fine.
    const inverse = computeResults(counts, [0.5, 0.5], [guardrail([4000, 3800], "higher")]).results;
    expect(inverse.guardrails[0]!.status).toBe("ok");
    expect(decideWinner(inverse, 100)).toBe(1);
  });
});

describe("the single-look rule (a stop by hand)", () => {
  const counts = [
    { name: "control", exposures: 1000, conversions: 100 },
    { name: "b", exposures: 1000, conversions: 130 },
  ];

  it("declares a winner at ≥ 0.95, the control at ≤ 0.05, nothing below the minimum sample or with SRM", () => {
    expect(decideWinnerFixedHorizon(computeResults(counts, [0.5, 0.5]).results, 100)).toBe(1);
    expect(decideWinnerFixedHorizon(computeResults(counts, [0.5, 0.5]).results, 1001)).toBeNull();
    const reversed = [counts[1]!, { ...counts[0]!, name: "b" }];
    expect(decideWinnerFixedHorizon(computeResults(reversed, [0.5, 0.5]).results, 100)).toBe(0);
    const close = [counts[0]!, { name: "b", exposures: 1000, conversions: 105 }];
    expect(decideWinnerFixedHorizon(computeResults(close, [0.5, 0.5]).results, 100)).toBeNull();
    const srm = [counts[0]!, { name: "b", exposures: 1300, conversions: 169 }];
    const r = computeResults(srm, [0.5, 0.5]).results;
    expect(r.srm.mismatch).toBe(true);
    expect(decideWinnerFixedHorizon(r, 100)).toBeNull();
  });
});
