import { describe, expect, it } from "vitest";
import { VisitorSketch, countUnion, mergedSketch, visitorHash } from "./hll.js";

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

  it("estimate large unions within 5% once dense", () => {
    const days: string[] = [];
    for (let d = 0; d < 5; d++) {
      const s = new VisitorSketch();
      // 4000 visitors a day, half of them returning every day
      for (let i = 0; i < 2000; i++) s.add(visitorHash(`loyal${i}`));
      for (let i = 0; i < 2000; i++) s.add(visitorHash(`day${d}-${i}`));
      expect(s.isExact).toBe(false);
      days.push(s.serialize());
    }
    const n = countUnion(days);
    expect(Math.abs(n - 12_000) / 12_000).toBeLessThan(0.05);
    expect(countUnion([])).toBe(0);
  });

  describe("merged into a stored row, its decoded sketch kept", () => {
    const hashes = (from: number, to: number) =>
      new Set(Array.from({ length: to - from }, (_, i) => visitorHash(`v${from + i}`)));
    const dense = (() => {
      const s = new VisitorSketch();
      for (const h of hashes(0, 3000)) s.add(h);
      return s.serialize();
    })();

    it("writes what a fresh decode writes, flush after flush", () => {
      let kept = dense;
      let fresh = dense;
      for (let flush = 0; flush < 5; flush++) {
        const batch = hashes(3000 + flush * 700, 3000 + (flush + 1) * 700);
        kept = mergedSketch(kept, batch, "test|row-a") ?? kept;
        fresh = mergedSketch(fresh, batch) ?? fresh;
        expect(kept).toBe(fresh);
      }
      expect(mergedSketch(kept, hashes(0, 50), "test|row-a")).toBeNull();
    });

    it("decodes the stored text anew when it is not the one kept (a rolled-back flush)", () => {
      const written = mergedSketch(dense, hashes(5000, 9000), "test|row-b");
      expect(written).not.toBeNull();
      // The flush that wrote `written` rolled back: the row still holds `dense`.
      const again = mergedSketch(dense, hashes(9000, 9100), "test|row-b");
      expect(again).toBe(mergedSketch(dense, hashes(9000, 9100)));
      expect(VisitorSketch.parse(again!).count()).toBeLessThan(VisitorSketch.parse(written!).count());
    });

    it("keeps exact sketches exact", () => {
      const small = mergedSketch("s", hashes(0, 10), "test|row-c")!;
      const more = mergedSketch(small, hashes(5, 20), "test|row-c")!;
      expect(VisitorSketch.parse(more).count()).toBe(20);
      expect(VisitorSketch.parse(more).isExact).toBe(true);
    });
  });
});
