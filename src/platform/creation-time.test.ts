import { describe, expect, it } from "vitest";
import { creationTime } from "./creation-time.js";

describe("creationTime", () => {
  it("is strictly later than the stamp before it, even within one millisecond", () => {
    const at = Date.parse("2026-11-27T10:00:00.000Z");
    const stamps = [creationTime(at), creationTime(at), creationTime(at), creationTime(at + 1)];
    expect(stamps).toEqual([
      "2026-11-27T10:00:00.000Z",
      "2026-11-27T10:00:00.001Z",
      "2026-11-27T10:00:00.002Z",
      "2026-11-27T10:00:00.003Z",
    ]);
  });

  it("follows the wall clock again once it passes the last stamp", () => {
    const later = Date.parse("2026-11-27T10:00:05.000Z");
    expect(creationTime(later)).toBe("2026-11-27T10:00:05.000Z");
  });
});
