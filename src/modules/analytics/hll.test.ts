import { describe, expect, it } from "vitest";
import { VisitorSketch, countUnion, visitorHash } from "./hll.js";

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
});
