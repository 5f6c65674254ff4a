import { describe, expect, it } from "vitest";
import { seedStart } from "./filter-fixture.testing.js";

describe("the filter fixture's times", () => {
  it("puts every seeded event on one UTC day, hours before now, whatever the hour", () => {
    const day = (ms: number) => Math.floor(ms / 86_400_000);
    // Every minute of a day around a Monday's midnight (a week's first day too).
    const monday = Date.parse("2026-11-30T00:00:00Z");
    for (let now = monday - 2 * 3_600_000; now < monday + 22 * 3_600_000; now += 60_000) {
      const first = seedStart(now);
      const last = first + 30 * 60_000;
      expect(day(first), new Date(now).toISOString()).toBe(day(last));
      expect(now - last).toBeGreaterThan(4 * 3_600_000);
    }
  });
});
