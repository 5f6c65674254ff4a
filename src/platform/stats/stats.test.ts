import { describe, expect, it } from "vitest";
import { thompsonWeights } from "./allocation.js";
import { formatConfidence } from "./confidence-format.js";
import { computeResults } from "./results.js";
import {
  betaDraw,
  chanceToBeat,
  chiSquareSurvival,
  differenceInterval,
  holmAdjust,
  logGamma,
  meanDifferenceIntervals,
  mulberry32,
  normalCdf,
  srmPValue,
  twoProportionPValue,
} from "./stats.js";
import {
  SEQUENTIAL_ALPHA,
  sequentialProportions,
  sequentialRho2,
  sequentialTest,
  visitorsToDecide,
} from "./sequential.js";

// Reference values below were computed by hand from the textbook formulas (and cross-checked with
// scipy.stats: beta.pdf·beta.cdf integrated by quad, chi2.sf, norm.cdf).
describe("special functions", () => {
  it("matches known values", () => {
    expect(logGamma(1)).toBeCloseTo(0, 12);
    expect(logGamma(5)).toBeCloseTo(Math.log(24), 12);
    expect(logGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 12);
    expect(normalCdf(0)).toBeCloseTo(0.5, 7);
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 6);
    // Critical values of the chi-square table.
    expect(chiSquareSurvival(3.841458820694124, 1)).toBeCloseTo(0.05, 7);
    expect(chiSquareSurvival(5.991464547107979, 2)).toBeCloseTo(0.05, 7);
    expect(chiSquareSurvival(10.827566170662733, 1)).toBeCloseTo(0.001, 7);
    expect(chiSquareSurvival(12.3, 2)).toBeCloseTo(0.0021334818, 8);
  });
});

describe("two-proportion tests", () => {
  // Control 100/1000 (10%), variant 130/1000 (13%).
  it("pooled z-test: z = 0.03 / sqrt(0.115·0.885·(2/1000)) = 2.1027, p = 0.03549", () => {
    expect(twoProportionPValue(1000, 100, 1000, 130)).toBeCloseTo(0.0354885, 5);
    expect(twoProportionPValue(1000, 100, 1000, 100)).toBeCloseTo(1, 7);
    expect(twoProportionPValue(0, 0, 10, 1)).toBe(1);
  });

  it("Wald interval of the difference: 0.03 ± 1.96·sqrt(.1·.9/1000 + .13·.87/1000)", () => {
    const [lo, hi] = differenceInterval(1000, 100, 1000, 130)!;
    expect(lo).toBeCloseTo(0.00206793, 7);
    expect(hi).toBeCloseTo(0.05793207, 7);
  });

  it("chance to beat control: closed form equals the exact integral", () => {
    // Beta(1,1) vs Beta(2,1): P(B > A) = E[p_B] = 2/3.
    expect(chanceToBeat({ exposures: 0, conversions: 0 }, { exposures: 1, conversions: 1 })).toBeCloseTo(
      2 / 3,
      10,
    );
    expect(chanceToBeat({ exposures: 50, conversions: 5 }, { exposures: 50, conversions: 5 })).toBeCloseTo(
      0.5,
      10,
    );
    expect(
      chanceToBeat({ exposures: 1000, conversions: 100 }, { exposures: 1000, conversions: 130 }),
    ).toBeCloseTo(0.98216507, 6);
    expect(
      chanceToBeat({ exposures: 100, conversions: 15 }, { exposures: 100, conversions: 10 }),
    ).toBeCloseTo(0.14671621, 6);
  });

  it("closed form agrees with 100k seeded Monte Carlo draws, and the large-count approximation is continuous", () => {
    const rand = mulberry32(42);
    let wins = 0;
    for (let i = 0; i < 100_000; i++) if (betaDraw(131, 871, rand) > betaDraw(101, 901, rand)) wins++;
    expect(wins / 100_000).toBeCloseTo(0.9822, 2);
    const exact = chanceToBeat(
      { exposures: 200_000, conversions: 19_990 },
      { exposures: 200_000, conversions: 19_998 },
    );
    const approx = chanceToBeat(
      { exposures: 200_000, conversions: 20_100 },
      { exposures: 200_000, conversions: 20_108 },
    );
    expect(Math.abs(exact - approx)).toBeLessThan(0.01);
  });

  it("sample ratio mismatch: chi-square of 5000 vs 5200 at 50/50 = 3.92, p = 0.0477", () => {
    expect(srmPValue([5000, 5200], [0.5, 0.5])).toBeCloseTo(0.04767038, 6);
    expect(srmPValue([5000, 5600], [0.5, 0.5])).toBeLessThan(0.001);
    expect(srmPValue([2000, 8000], [0.2, 0.8])).toBeCloseTo(1, 7);
  });
});

describe("results", () => {
  const counts = [
    { name: "control", exposures: 1000, conversions: 100 },
    { name: "b", exposures: 1000, conversions: 130 },
  ];

  it("reports per-variant rate, relative uplift with interval, chance, p-value and confidence", () => {
    const { results, confidence } = computeResults(counts, [0.5, 0.5]);
    const b = results.variants[1]!;
    expect(b.conversionRate).toBeCloseTo(0.13, 12);
    expect(b.uplift).toBeCloseTo(0.3, 12);
    expect(b.upliftInterval![0]).toBeCloseTo(0.0206793, 6);
    expect(b.upliftInterval![1]).toBeCloseTo(0.5793207, 6);
    expect(b.pValue).toBeCloseTo(0.0354885, 5);
    expect(confidence).toBeCloseTo(0.98216507, 6);
    expect(results.variants[0]!.chanceToBeatControl).toBeNull();
    expect(results.srm).toEqual({ checked: true, pValue: 1, mismatch: false });
  });

  it("checks the sample ratio only against a planned split", () => {
    const skewed = [counts[0]!, { name: "b", exposures: 1300, conversions: 169 }];
    expect(computeResults(skewed, [0.5, 0.5]).results.srm.mismatch).toBe(true);
    expect(computeResults(skewed, null).results.srm).toEqual({
      checked: false,
      pValue: null,
      mismatch: false,
    });
  });
});

describe("Thompson sampling (bandit simulation)", () => {
  it("sends most traffic to the best arm after convergence, keeping a 1% floor", () => {
    // Known true conversion rates; rounds of 500 visitors allocated by the current weights.
    const truth = [0.04, 0.06, 0.1];
    const rand = mulberry32(7);
    const counts = truth.map((_, i) => ({ name: `arm${i}`, exposures: 0, conversions: 0 }));
    let weights = [1 / 3, 1 / 3, 1 / 3];
    for (let round = 0; round < 40; round++) {
      for (let v = 0; v < 500; v++) {
        const u = rand();
        let arm = 0;
        let cum = weights[0]!;
        while (u >= cum && arm < weights.length - 1) cum += weights[++arm]!;
        counts[arm]!.exposures++;
        if (rand() < truth[arm]!) counts[arm]!.conversions++;
      }
      // Burn-in of 100 exposures per arm, as the job does.
      if (counts.every((c) => c.exposures >= 100))
        weights = thompsonWeights(counts, { draws: 2000, seed: round });
    }
    expect(weights[2]).toBeGreaterThan(0.9);
    expect(Math.min(...weights)).toBeGreaterThanOrEqual(0.01 - 1e-12);
    expect(weights.reduce((s, w) => s + w, 0)).toBeCloseTo(1, 12);
    const share = counts[2]!.exposures / counts.reduce((s, c) => s + c.exposures, 0);
    expect(share).toBeGreaterThan(0.6);
  });
});

describe("Holm–Bonferroni adjustment (more than two arms)", () => {
  it("multiplies the k-th smallest of m p-values by m − k + 1, keeps them monotone, caps at 1 (hand-computed)", () => {
    // Sorted: 0.01 ×3 = 0.03; 0.03 ×2 = 0.06; 0.04 ×1 = 0.04 → kept at 0.06.
    const adjusted = holmAdjust([null, 0.01, 0.04, 0.03]);
    expect(adjusted[0]).toBeNull();
    expect(adjusted[1]).toBeCloseTo(0.03, 12);
    expect(adjusted[2]).toBeCloseTo(0.06, 12);
    expect(adjusted[3]).toBeCloseTo(0.06, 12);
    expect(holmAdjust([null, 0.5, 0.6])).toEqual([null, 1, 1]);
    expect(holmAdjust([null, 0.2])).toEqual([null, 0.2]);
  });

  it("results carry both: one variant's adjusted value is its raw one; three are adjusted together", () => {
    const two = computeResults(
      [
        { name: "control", exposures: 1000, conversions: 100 },
        { name: "b", exposures: 1000, conversions: 130 },
      ],
      [0.5, 0.5],
    ).results.variants;
    expect(two[1]!.adjustedPValue).toBe(two[1]!.pValue);
    const four = computeResults(
      [
        { name: "control", exposures: 1000, conversions: 100 },
        { name: "b", exposures: 1000, conversions: 130 },
        { name: "c", exposures: 1000, conversions: 110 },
        { name: "d", exposures: 1000, conversions: 125 },
      ],
      [0.25, 0.25, 0.25, 0.25],
    ).results.variants;
    expect(four[0]!.adjustedPValue).toBeNull();
    const raw = four.map((v) => v.pValue);
    expect(four.map((v) => v.adjustedPValue)).toEqual(holmAdjust(raw));
    // b has the smallest p-value of three: ×3.
    expect(four[1]!.adjustedPValue).toBeCloseTo(Math.min(1, 3 * raw[1]!), 12);
    for (const v of four.slice(1)) expect(v.adjustedPValue!).toBeGreaterThanOrEqual(v.pValue!);
  });
});

/** The mSPRT's p-value after m more visitors per arm at the same rates (sequentialTest, independently). */
const pAfter = (nA: number, pA: number, nB: number, pB: number, m: number) =>
  sequentialTest(pB - pA, (pA * (1 - pA)) / (nA + m) + (pB * (1 - pB)) / (nB + m), nA + nB + 2 * m).pValue;

describe("visitorsToDecide", () => {
  it("is the first sample at which the sequential test rejects at the current rates", () => {
    // 10% vs 13% on 1000 per arm: not decided yet (p ≈ 0.379, the mSPRT's reference below).
    const m = visitorsToDecide(1000, 100, 1000, 130)!;
    expect(m).toBeGreaterThan(0);
    expect(pAfter(1000, 0.1, 1000, 0.13, m)).toBeLessThan(SEQUENTIAL_ALPHA);
    expect(pAfter(1000, 0.1, 1000, 0.13, m - 1)).toBeGreaterThanOrEqual(SEQUENTIAL_ALPHA);
  });

  it("is 0 once decided, infinite for equal rates, unknown without conversions", () => {
    expect(visitorsToDecide(5000, 500, 5000, 700)).toBe(0);
    expect(visitorsToDecide(1000, 100, 1000, 100)).toBe(Number.POSITIVE_INFINITY);
    expect(visitorsToDecide(100, 0, 100, 0)).toBeNull();
    expect(visitorsToDecide(0, 0, 10, 1)).toBeNull();
    // 10.0% vs 10.1%: far beyond a million per arm
    expect(visitorsToDecide(1000, 100, 1000, 101)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe("one confidence figure", () => {
  it("has one decimal and reads 100% only when it is exactly 1", () => {
    expect(formatConfidence(0.998)).toBe("99.8%");
    expect(formatConfidence(0.9995)).toBe("99.9%");
    expect(formatConfidence(1 - 1e-12)).toBe("99.9%");
    expect(formatConfidence(1)).toBe("100.0%");
    expect(formatConfidence(0.95)).toBe("95.0%");
    expect(formatConfidence(0.12345)).toBe("12.3%");
    expect(formatConfidence(0)).toBe("0.0%");
  });
});

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
