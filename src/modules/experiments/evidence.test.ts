import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { K, MAX, MIN, updateConfidence } from "../beliefs/service.js";
import { evidenceFromResults, standardisedEffect } from "./evidence.js";
import { computeResults } from "../../platform/stats/results.js";

const logit = (p: number) => Math.log(p / (1 - p));

/** Counts of a control (with at least one conversion, so an uplift exists) and one variant. */
const arms = fc
  .record({
    nA: fc.integer({ min: 1, max: 20_000 }),
    nB: fc.integer({ min: 1, max: 20_000 }),
    a: fc.double({ min: 0, max: 1, noNaN: true }),
    b: fc.double({ min: 0, max: 1, noNaN: true }),
  })
  .map(({ nA, nB, a, b }) => ({
    nA,
    cA: Math.max(1, Math.round(a * nA)),
    nB,
    cB: Math.round(b * nB),
  }));
const confidence = fc.double({ min: MIN, max: MAX, noNaN: true });

function evidence(c: { nA: number; cA: number; nB: number; cB: number }) {
  const { results } = computeResults(
    [
      { name: "control", exposures: c.nA, conversions: c.cA },
      { name: "b", exposures: c.nB, conversions: c.cB },
    ],
    [0.5, 0.5],
  );
  const e = evidenceFromResults(results, null);
  if (!e) throw new Error("a control with conversions always gives evidence");
  return { ...e, uplift: results.variants[1]!.uplift! };
}
/** The automatic step: the confidence after a completed experiment's evidence. */
function step(before: number, c: { nA: number; cA: number; nB: number; cB: number }) {
  const e = evidence(c);
  return updateConfidence(before, e.delta, e.sampleSize);
}

describe("experiment evidence (properties)", () => {
  it("a single automatic step moves log-odds by at most K, so 0.5 never reaches 0.99 or 0.01", () => {
    fc.assert(
      fc.property(arms, confidence, (c, before) => {
        const after = step(before, c);
        expect(Math.abs(logit(after) - logit(before))).toBeLessThanOrEqual(K + 1e-9);
        const fromHalf = step(0.5, c);
        expect(fromHalf).toBeLessThan(0.99);
        expect(fromHalf).toBeGreaterThan(0.01);
      }),
    );
  });

  it("the direction follows the effect: an uplift raises, a loss lowers", () => {
    fc.assert(
      fc.property(arms, confidence, (c, before) => {
        const { uplift, delta } = evidence(c);
        expect(Math.sign(delta)).toBe(Math.sign(uplift));
        const after = step(before, c);
        if (uplift > 0) expect(after).toBeGreaterThanOrEqual(before);
        if (uplift < 0) expect(after).toBeLessThanOrEqual(before);
        if (uplift !== 0 && before > 0.01 && before < 0.99) expect(after).not.toBe(before);
      }),
    );
  });

  it("no effect keeps the confidence", () => {
    const same = fc.record({
      nA: fc.integer({ min: 1, max: 5_000 }),
      rate: fc.double({ min: 0, max: 1, noNaN: true }),
      k: fc.integer({ min: 1, max: 20 }),
    });
    fc.assert(
      fc.property(same, confidence, ({ nA, rate, k }, before) => {
        const cA = Math.max(1, Math.round(rate * nA));
        expect(step(before, { nA, cA, nB: k * nA, cB: k * cA })).toBe(before);
      }),
    );
  });

  it("the same rates on more visitors move confidence at least as far", () => {
    fc.assert(
      fc.property(arms, fc.integer({ min: 2, max: 50 }), (c, k) => {
        const more = { nA: k * c.nA, cA: k * c.cA, nB: k * c.nB, cB: k * c.cB };
        expect(Math.abs(logit(step(0.5, more)))).toBeGreaterThanOrEqual(Math.abs(logit(step(0.5, c))) - 1e-9);
      }),
    );
  });

  it("is monotone in strength: a larger uplift or a narrower interval never gives a weaker delta", () => {
    const positive = fc.double({ min: 1e-6, max: 100, noNaN: true });
    fc.assert(
      fc.property(positive, positive, positive, positive, (u1, u2, h1, h2) => {
        const [small, large] = u1 <= u2 ? [u1, u2] : [u2, u1];
        const [narrow, wide] = h1 <= h2 ? [h1, h2] : [h2, h1];
        const at = (u: number, h: number) => standardisedEffect(u, [u - h, u + h]);
        // Monotone up to floating point: uplifts a few ulps apart may round the other way.
        const ulps = 1e-12;
        expect(at(large, wide)).toBeGreaterThanOrEqual(at(small, wide) - ulps);
        expect(at(small, narrow)).toBeGreaterThanOrEqual(at(small, wide) - ulps);
        expect(at(large, wide)).toBeLessThanOrEqual(1);
        expect(standardisedEffect(-small, [-small - wide, -small + wide])).toBe(-at(small, wide));
      }),
    );
  });

  it("weighs a huge uplift on a small sample below a precise one (examples)", () => {
    // 200% uplift, 5% → 15% on 100 visitors per arm: z ≈ 2.4
    const small = step(0.5, { nA: 100, cA: 5, nB: 100, cB: 15 });
    // 10% uplift, 10% → 11% on 100,000 visitors per arm: z ≈ 7.3, past Z_FULL (full strength)
    const preciseCounts = { nA: 100_000, cA: 10_000, nB: 100_000, cB: 11_000 };
    expect(evidence(preciseCounts).delta).toBe(1);
    const precise = step(0.5, preciseCounts);
    expect(small).toBeGreaterThan(0.75);
    expect(small).toBeLessThan(0.85);
    expect(precise).toBeGreaterThan(small);
    expect(precise).toBeCloseTo(1 / (1 + Math.exp(-K * Math.sqrt(200_000 / 200_100))), 10);
  });
});
