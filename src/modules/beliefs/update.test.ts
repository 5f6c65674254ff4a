import { describe, expect, it } from "vitest";
import { MAX, MIN, updateConfidence } from "./update.js";

describe("updateConfidence at the edges of the numbers a client may send", () => {
  it("evidence of sample size 0 weighs nothing, even with the largest delta (was NaN, stored on PostgreSQL)", () => {
    expect(updateConfidence(0.5, Number.MAX_VALUE, 0)).toBe(0.5);
    expect(updateConfidence(0.5, -Number.MAX_VALUE, 0)).toBe(0.5);
  });

  it("an overflowing step moves the confidence to its bound, never past it, never to NaN", () => {
    expect(updateConfidence(0.5, Number.MAX_VALUE)).toBe(MAX);
    expect(updateConfidence(0.5, -Number.MAX_VALUE, 1e300)).toBe(MIN);
    expect(updateConfidence(0.5, 3e-304, 0)).toBe(0.5);
  });
});
