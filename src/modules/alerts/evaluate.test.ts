import { describe, expect, it } from "vitest";
import { conditionText, decide, meets, windowOf } from "./evaluate.js";

const day = (iso: string) => Date.parse(iso);

describe("the latest complete bucket", () => {
  it("a day alert checks yesterday (UTC), against the day before", () => {
    const w = windowOf("day", day("2026-03-05T00:30:00Z"));
    expect(w).toMatchObject({
      from: "2026-03-03",
      to: "2026-03-04",
      bucket: "2026-03-04T00:00:00.000Z",
      previousBucket: "2026-03-03T00:00:00.000Z",
    });
  });
  it("a week alert checks last week (Monday to Sunday), against the week before", () => {
    // 2026-03-05 is a Thursday: the week running since Monday 2026-03-02 is not complete.
    const w = windowOf("week", day("2026-03-05T12:00:00Z"));
    expect(w).toMatchObject({
      from: "2026-02-16",
      to: "2026-03-01",
      bucket: "2026-02-23T00:00:00.000Z",
      previousBucket: "2026-02-16T00:00:00.000Z",
    });
    expect(windowOf("week", day("2026-03-02T00:00:00Z")).bucket).toBe("2026-02-23T00:00:00.000Z");
  });
});

describe("conditions", () => {
  it("above and below compare the bucket with the value; no value never crosses", () => {
    expect(meets({ kind: "below", value: 3 }, 2, null)).toBe(true);
    expect(meets({ kind: "below", value: 3 }, 3, null)).toBe(false);
    expect(meets({ kind: "above", value: 3 }, 4, null)).toBe(true);
    expect(meets({ kind: "above", value: 3 }, null, null)).toBe(false);
  });
  it("change compares the bucket with the one before, in percent of the one before", () => {
    const down30 = { kind: "change", direction: "down", percent: 30 } as const;
    expect(meets(down30, 70, 100)).toBe(true);
    expect(meets(down30, 71, 100)).toBe(false);
    expect(meets(down30, 200, 100)).toBe(false);
    expect(meets({ kind: "change", direction: "up", percent: 50 }, 150, 100)).toBe(true);
    expect(meets({ kind: "change", direction: "either", percent: 50 }, 40, 100)).toBe(true);
    expect(meets({ kind: "change", direction: "either", percent: 50 }, 120, 100)).toBe(false);
    // From nothing there is no percent: not a crossing.
    expect(meets({ kind: "change", direction: "up", percent: 10 }, 5, 0)).toBe(false);
    expect(meets({ kind: "change", direction: "up", percent: 10 }, 5, null)).toBe(false);
  });
  it("reads as a sentence", () => {
    expect(conditionText({ kind: "below", value: 3 })).toBe("below 3");
    expect(conditionText({ kind: "change", direction: "down", percent: 30 })).toBe(
      "down by 30% or more from the bucket before",
    );
  });
});

describe("fires when it crosses, not every check while it stays crossed", () => {
  const b = (d: number) => `2026-03-0${d}T00:00:00.000Z`;
  it("a first crossed bucket fires; the same bucket or a later crossed one does not", () => {
    expect(decide(null, b(2), true)).toBe("fire");
    expect(decide({ bucket: b(2), crossed: true }, b(2), true)).toBe("same");
    expect(decide({ bucket: b(2), crossed: true }, b(3), true)).toBe("record");
    expect(decide({ bucket: b(3), crossed: true }, b(4), false)).toBe("record");
    expect(decide({ bucket: b(4), crossed: false }, b(5), true)).toBe("fire");
    expect(decide(null, b(2), false)).toBe("record");
    // A bucket older than the one last checked changes nothing.
    expect(decide({ bucket: b(5), crossed: false }, b(4), true)).toBe("same");
  });
});
