import { describe, expect, it } from "vitest";
import {
  ESTIMATE_ERROR,
  STORED_EXACT,
  UNION_EXACT,
  VisitorSketch,
  countUnion,
  mergedSketch,
  visitorHash,
} from "./hll.js";

/** A fixed-seed stream of 32-bit hashes (xorshift32): the same sketches on every run. */
function hashes(seed: number) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

describe("visitor sketches", () => {
  it("count exactly while small, across a serialize round trip and unions", () => {
    const a = new VisitorSketch();
    const b = new VisitorSketch();
    for (let i = 0; i < 100; i++) a.add(visitorHash(`v${i}`));
    for (let i = 50; i < 180; i++) b.add(visitorHash(`v${i}`));
    a.add(visitorHash("v1"));
    expect(a.count()).toBe(100);
    expect(countUnion([a.serialize(), b.serialize()])).toBe(180);
    expect(VisitorSketch.parse(a.serialize()).isExact).toBe(true);
  });

  it("a stored sketch stays exact up to STORED_EXACT visitors, then turns dense", () => {
    const s = new VisitorSketch();
    for (let i = 0; i < 4000; i++) s.add(visitorHash(`v${i}`));
    expect(s.isExact).toBe(true);
    expect(VisitorSketch.parse(s.serialize()).count()).toBe(4000);
    for (let i = 4000; i < STORED_EXACT; i++) s.add(visitorHash(`v${i}`));
    expect(s.isExact).toBe(true);
    s.add(visitorHash("one more"));
    expect(s.isExact).toBe(false);
    expect(VisitorSketch.parse(s.serialize()).isExact).toBe(false);
  });

  it("a report's union of exact rows stays exact past the stored limit, and turns dense with a dense row", () => {
    const days: string[] = [];
    for (let d = 0; d < 7; d++) {
      const s = new VisitorSketch();
      // 3,000 a day, 1,000 of them every day: 1,000 + 7 × 2,000 distinct
      for (let i = 0; i < 1000; i++) s.add(visitorHash(`loyal${i}`));
      for (let i = 0; i < 2000; i++) s.add(visitorHash(`day${d}-${i}`));
      days.push(s.serialize());
    }
    const union = VisitorSketch.union();
    for (const t of days) union.mergeText(t);
    expect(union.isExact).toBe(true);
    expect(union.count()).toBe(15_000);
    expect(countUnion(days)).toBe(15_000);
    expect(UNION_EXACT).toBeGreaterThan(15_000);
    const dense = new VisitorSketch(0);
    dense.add(visitorHash("loyal1"));
    union.mergeText(dense.serialize());
    expect(union.isExact).toBe(false);
    expect(Math.abs(union.count() - 15_000) / 15_000).toBeLessThan(ESTIMATE_ERROR);
  });

  it("merges commute and associate: any order of days gives the same sketch", () => {
    const next = hashes(7);
    const small = new VisitorSketch();
    const mid = new VisitorSketch();
    const big = new VisitorSketch();
    for (let i = 0; i < 300; i++) small.add(next());
    for (let i = 0; i < 3000; i++) mid.add(next());
    for (let i = 0; i < 20_000; i++) big.add(next());
    const texts = [small.serialize(), mid.serialize(), big.serialize()];
    const orders = [
      [0, 1, 2],
      [2, 1, 0],
      [1, 0, 2],
      [2, 0, 1],
    ];
    const merged = orders.map((o) => {
      const s = new VisitorSketch();
      for (const i of o) s.merge(VisitorSketch.parse(texts[i]!));
      return s.serialize();
    });
    for (const m of merged) expect(m).toBe(merged[0]);
    const ab = VisitorSketch.parse(texts[0]!);
    ab.merge(VisitorSketch.parse(texts[1]!));
    const ba = VisitorSketch.parse(texts[1]!);
    ba.merge(VisitorSketch.parse(texts[0]!));
    expect(ab.serialize()).toBe(ba.serialize());
    expect(ab.count()).toBe(3300);
  });

  it("estimates without bias, 99% of counts within ESTIMATE_ERROR, at every cardinality (fixed seed)", () => {
    const sizes = [600, 5000, 10_000, 12_000, 15_000, 20_000, 50_000, 200_000];
    const TRIALS = 40;
    const next = hashes(20_260_401);
    let outside = 0;
    for (const n of sizes) {
      let bias = 0;
      for (let t = 0; t < TRIALS; t++) {
        // dense from the first visitor: as a row stored dense by an earlier version, or a union
        const s = new VisitorSketch(0);
        for (let i = 0; i < n; i++) s.add(next());
        const err = (s.count() - n) / n;
        bias += err / TRIALS;
        if (Math.abs(err) > ESTIMATE_ERROR) outside++;
      }
      expect({ n, bias: Math.abs(bias) < 0.006 }).toEqual({ n, bias: true });
    }
    expect(outside).toBeLessThanOrEqual(Math.ceil(0.01 * sizes.length * TRIALS) + 1);
  });

  it("reads the stored texts of before: sparse hex and dense registers", () => {
    expect(VisitorSketch.parse("s").count()).toBe(0);
    expect(VisitorSketch.parse("s0000000affffffff").count()).toBe(2);
    expect(countUnion(["s0000000affffffff", "s0000000a"])).toBe(2);
    // 4,096 registers, chr(48 + rank): "0" is an empty register
    expect(VisitorSketch.parse(`d${"0".repeat(4096)}`).count()).toBe(0);
    // a row an earlier version turned dense at 513 visitors: the same registers, counted anew
    const early = new VisitorSketch(0);
    for (let i = 0; i < 600; i++) early.add(visitorHash(`v${i}`));
    const text = early.serialize();
    expect(text).toMatch(/^d[0-E]{4096}$/);
    const dense = VisitorSketch.parse(text);
    expect(dense.isExact).toBe(false);
    expect(Math.abs(dense.count() - 600) / 600).toBeLessThan(ESTIMATE_ERROR);
  });

  describe("merged into a stored row, its decoded sketch kept", () => {
    const ids = (from: number, to: number) =>
      new Set(Array.from({ length: to - from }, (_, i) => visitorHash(`v${from + i}`)));
    const dense = (() => {
      const s = new VisitorSketch();
      for (const h of ids(0, 6000)) s.add(h);
      return s.serialize();
    })();

    it("writes what a fresh decode writes, flush after flush", () => {
      expect(dense.startsWith("d")).toBe(true);
      let kept = dense;
      let fresh = dense;
      for (let flush = 0; flush < 5; flush++) {
        const batch = ids(6000 + flush * 700, 6000 + (flush + 1) * 700);
        kept = mergedSketch(kept, batch, "test|row-a") ?? kept;
        fresh = mergedSketch(fresh, batch) ?? fresh;
        expect(kept).toBe(fresh);
      }
      expect(mergedSketch(kept, ids(0, 50), "test|row-a")).toBeNull();
    });

    it("decodes the stored text anew when it is not the one kept (a rolled-back flush)", () => {
      const written = mergedSketch(dense, ids(9000, 19000), "test|row-b");
      expect(written).not.toBeNull();
      // The flush that wrote `written` rolled back: the row still holds `dense`.
      const again = mergedSketch(dense, ids(19000, 19100), "test|row-b");
      expect(again).toBe(mergedSketch(dense, ids(19000, 19100)));
      expect(VisitorSketch.parse(again!).count()).toBeLessThan(VisitorSketch.parse(written!).count());
    });

    it("keeps exact sketches exact, large ones too", () => {
      const small = mergedSketch("s", ids(0, 10), "test|row-c")!;
      const more = mergedSketch(small, ids(5, 20), "test|row-c")!;
      expect(VisitorSketch.parse(more).count()).toBe(20);
      expect(VisitorSketch.parse(more).isExact).toBe(true);
      const large = mergedSketch(more, ids(20, 3000), "test|row-c")!;
      const larger = mergedSketch(large, ids(2990, 3500), "test|row-c")!;
      expect(larger).toBe(mergedSketch(large, ids(2990, 3500)));
      expect(VisitorSketch.parse(larger).count()).toBe(3500);
    });

    it("writes a few new hashes into a large exact row as a whole serialization would", () => {
      const base = [...ids(0, 2000)];
      const stored = (() => {
        const s = new VisitorSketch();
        for (const h of base) s.add(h);
        return s.serialize();
      })();
      const sorted = [...base].sort((a, b) => a - b);
      const fresh = [...ids(2000, 2040)];
      // New hashes below the smallest, above the largest, between neighbours, and some already held.
      const flushes = [
        new Set([0, 0xffffffff]),
        new Set([sorted[0]! + 1, sorted[999]! + 1, sorted[1999]! - 1, sorted[500]!]),
        new Set(fresh.slice(0, 1)),
        new Set(fresh.slice(1, 9)),
        new Set([...fresh.slice(9, 20), sorted[3]!]),
      ];
      let kept = stored;
      const held = new VisitorSketch();
      for (const h of base) held.add(h);
      for (const batch of flushes) {
        for (const h of batch) held.add(h);
        kept = mergedSketch(kept, batch, "test|row-d") ?? kept;
        expect(kept).toBe(held.serialize());
        expect(mergedSketch(kept, batch)).toBeNull();
      }
      expect(VisitorSketch.parse(kept).count()).toBe(held.count());
    });
  });
});
