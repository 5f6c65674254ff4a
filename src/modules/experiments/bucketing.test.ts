import { GrowthBook } from "@growthbook/growthbook";
import { describe, expect, it } from "vitest";
import { assignVariant, bucketRanges, fnv1a32, hashV2 } from "./bucketing.js";

// Visitor ids of several shapes: UUID-like, short, numeric, and non-ASCII (accents, CJK, emoji
// surrogate pairs, RTL) — FNV-1a runs over UTF-16 code units, so these exercise that rule.
const EXOTIC = ["é", "Zoë", "北京", "😀", "עברית", "ß", "\u0000x", "ﬁ", "👩‍👩‍👧"];
function visitorId(i: number): string {
  switch (i % 4) {
    case 0:
      return `v-${i.toString(36)}-${(i * 2654435761) >>> 0}`;
    case 1:
      return String(i);
    case 2:
      return `${EXOTIC[i % EXOTIC.length]}${i}${EXOTIC[(i >> 3) % EXOTIC.length]}`;
    default:
      return `${((i * 40503) >>> 0).toString(16)}-4a7c-${i}`;
  }
}

const CONFIGS: Array<{ seed: string; weights: number[]; trafficSplit: number }> = [
  { seed: "exp_a1", weights: [0.5, 0.5], trafficSplit: 100 },
  { seed: "exp_b2", weights: [0.2, 0.3, 0.5], trafficSplit: 70 },
  { seed: "exp_c3", weights: [0.1, 0.1, 0.1, 0.7], trafficSplit: 33 },
  { seed: "exp_d4", weights: [0.01, 0.98, 0.01], trafficSplit: 5 },
];
const N = 100_000;

describe("bucketing", () => {
  it("computes FNV-1a 32 (reference vectors) and the v2 double hash", () => {
    // Test vectors of the FNV specification (Landon Curt Noll).
    expect(fnv1a32("")).toBe(0x811c9dc5);
    expect(fnv1a32("a")).toBe(0xe40c292c);
    expect(fnv1a32("foobar")).toBe(0xbf9cf968);
    expect(hashV2("seed", "a")).toBe((fnv1a32(String(fnv1a32("seeda"))) % 10000) / 10000);
  });

  it(`agrees with @growthbook/growthbook gb.run() on ${N} ids for every weight vector and coverage`, () => {
    const gb = new GrowthBook({ attributes: { id: "x" } });
    let agree = 0;
    let included = 0;
    const total = N * CONFIGS.length;
    for (let i = 0; i < N; i++) {
      const id = visitorId(i);
      gb.setAttributes({ id });
      for (const c of CONFIGS) {
        const ours = assignVariant(c.seed, id, c.weights, c.trafficSplit);
        const theirs = gb.run({
          key: c.seed,
          seed: c.seed,
          hashVersion: 2,
          variations: c.weights.map((_, k) => k) as [number, number, ...number[]],
          weights: c.weights,
          coverage: c.trafficSplit / 100,
        });
        const expected = theirs.inExperiment ? theirs.variationId : -1;
        if (ours === expected) agree++;
        if (ours >= 0) included++;
      }
    }
    expect(agree).toBe(total);
    // The comparison is not vacuous: many ids are in, many out.
    expect(included).toBeGreaterThan(total * 0.4);
    expect(included).toBeLessThan(total * 0.7);
  });

  it("keeps every included visitor in the same arm when trafficSplit rises", () => {
    const weights = [0.25, 0.25, 0.5];
    const splits = [10, 25, 50, 80, 100];
    for (let i = 0; i < 5000; i++) {
      const id = visitorId(i);
      let previous = -1;
      for (const s of splits) {
        const arm = assignVariant("exp_grow", id, weights, s);
        if (previous >= 0) expect(arm).toBe(previous);
        previous = arm;
      }
      expect(previous).toBeGreaterThanOrEqual(0);
    }
  });

  it("builds ranges from full cumulative weights scaled by coverage", () => {
    expect(bucketRanges([0.5, 0.5], 0.5)).toEqual([
      [0, 0.25],
      [0.5, 0.75],
    ]);
    expect(assignVariant("s", "", [0.5, 0.5], 100)).toBe(-1);
    expect(assignVariant("s", "abc", [0.5, 0.5], 0)).toBe(-1);
  });
});
