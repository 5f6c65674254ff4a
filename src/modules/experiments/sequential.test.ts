import { describe, expect, it } from "vitest";
import { decideOnStop, decideWinner, decideWinnerFixedHorizon } from "./decision.js";
import { computeResults, type GoalCounts } from "./results.js";
import { meanDifferenceIntervals, sequentialProportions, sequentialRho2 } from "./stats.js";

// Reference values: an independent Python computation of the same formulas (math module only):
// ρ² = (−2 ln α + ln(−2 ln α + 1)) / 5000, r = nρ², p = min(1, 1/Λ),
// Λ = (1 + r)^(−½) exp(z² r / (2(1 + r))), half = sqrt(V (1 + r)/r · (2 ln(1/α) + ln(1 + r))).
describe("the sequential test (mSPRT)", () => {
  it("matches the reference on two samples", () => {
    expect(sequentialRho2()).toBeCloseTo(7.936151 / 5000, 8);
    const small = sequentialProportions(1000, 100, 1000, 130)!;
    expect(small.pValue).toBeCloseTo(0.3789315075857973, 10);
    expect(small.interval[0]).toBeCloseTo(-0.01451796210226778, 10);
    expect(small.interval[1]).toBeCloseTo(0.07451796210226777, 10);
    const large = sequentialProportions(5000, 500, 5000, 600)!;
    expect(large.pValue).toBeCloseTo(0.03348600165745386, 10);
    expect(large.interval[0]).toBeCloseTo(0.0008516897655296875, 10);
    expect(large.interval[1]).toBeCloseTo(0.039148310234470296, 10);
  });

  it("is stricter than the single-look test: p = 0.036 there is not a decision here", () => {
    const { results } = computeResults(
      [
        { name: "control", exposures: 1000, conversions: 100 },
        { name: "b", exposures: 1000, conversions: 130 },
      ],
      [0.5, 0.5],
      "ab",
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
      "ab",
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
      "ab",
    ).results;
    expect(decideWinner(worse, 100)).toBe(0);
  });

  it("adjusts across challengers (Holm on the always-valid p-values)", () => {
    const counts = [
      { name: "control", exposures: 5000, conversions: 500 },
      { name: "b", exposures: 5000, conversions: 600 },
      { name: "c", exposures: 5000, conversions: 500 },
    ];
    const { results } = computeResults(counts, [1 / 3, 1 / 3, 1 / 3], "multivariate");
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
    const { results } = computeResults(counts, [0.5, 0.5], "ab", [guardrail([4000, 3800])]);
    expect(results.guardrails).toEqual([{ goal: "cg_refund_free", variant: "b", status: "failing" }]);
    expect(results.variants[1]!.sequential!.decided).toBe(true);
    expect(decideWinner(results, 100)).toBeNull();
    expect(decideOnStop(results, 100, "ab", [0.5, 0.5])).toEqual({ winner: null, method: "manual" });
  });

  it("warns when only the single-look test sees harm, and reads the direction", () => {
    const warning = computeResults(counts, [0.5, 0.5], "ab", [guardrail([4000, 3910])]).results;
    expect(warning.guardrails[0]!.status).toBe("warning");
    expect(decideWinner(warning, 100)).toBe(1);
    // The same drop on a goal where higher is worse (say, refunds) is fine.
    const inverse = computeResults(counts, [0.5, 0.5], "ab", [guardrail([4000, 3800], "higher")]).results;
    expect(inverse.guardrails[0]!.status).toBe("ok");
    expect(decideWinner(inverse, 100)).toBe(1);
  });
});

describe("revenue per visitor", () => {
  // Per-visitor revenue; the reference is Python's statistics.variance (two-pass) and the same
  // Welch and delta-method formulas: means 7.3182 / 9.1667.
  const a = [0, 0, 10, 0, 25.5, 0, 0, 40, 0, 0, 5];
  const b = [0, 12, 0, 0, 30, 0, 60, 0, 0, 0, 8, 0];
  const sums = (xs: number[]) => ({
    n: xs.length,
    sum: xs.reduce((s, x) => s + x, 0),
    sumSquares: xs.reduce((s, x) => s + x * x, 0),
  });

  it("gives Welch's interval of the difference and the delta-method relative interval", () => {
    const { difference, relative } = meanDifferenceIntervals(sums(a), sums(b));
    expect(difference![0]).toBeCloseTo(-11.191593319027783, 9);
    expect(difference![1]).toBeCloseTo(14.888563015997478, 9);
    expect(relative![0]).toBeCloseTo(-1.7064318186262035, 9);
    expect(relative![1]).toBeCloseTo(2.2116078020630563, 9);
  });

  it("is reported per variant from the running sums", () => {
    const { results } = computeResults(
      [
        {
          name: "control",
          exposures: a.length,
          conversions: 4,
          revenueSum: sums(a).sum,
          revenueSumSquares: sums(a).sumSquares,
        },
        {
          name: "b",
          exposures: b.length,
          conversions: 4,
          revenueSum: sums(b).sum,
          revenueSumSquares: sums(b).sumSquares,
        },
      ],
      [0.5, 0.5],
      "ab",
    );
    expect(results.variants[0]!.revenuePerVisitor).toEqual({
      mean: 80.5 / 11,
      interval: null,
      relativeInterval: null,
    });
    expect(results.variants[1]!.revenuePerVisitor.mean).toBeCloseTo(9.166666666666666, 12);
    expect(results.variants[1]!.revenuePerVisitor.interval![1]).toBeCloseTo(14.888563015997478, 9);
  });
});
