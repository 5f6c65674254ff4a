import { describe, expect, it } from "vitest";
import { computedAgo } from "../../web/src/pages/dashboards/computed.js";

/** The dashboard's "Computed …" note: the age of its kept results in words. */
const NOW = Date.parse("2025-06-02T12:00:00.000Z");
const earlier = (ms: number) => new Date(NOW - ms).toISOString();

describe("computedAgo", () => {
  it("says just now under 45 seconds, and for a clock a little behind the server's", () => {
    expect(computedAgo(earlier(0), NOW)).toBe("just now");
    expect(computedAgo(earlier(44_000), NOW)).toBe("just now");
    expect(computedAgo(earlier(-3_000), NOW)).toBe("just now");
  });

  it("counts minutes, then hours, then days", () => {
    expect(computedAgo(earlier(45_000), NOW)).toBe("1 minute ago");
    expect(computedAgo(earlier(14 * 60_000), NOW)).toBe("14 minutes ago");
    expect(computedAgo(earlier(59 * 60_000), NOW)).toBe("59 minutes ago");
    expect(computedAgo(earlier(60 * 60_000), NOW)).toBe("1 hour ago");
    expect(computedAgo(earlier(5 * 3_600_000), NOW)).toBe("5 hours ago");
    expect(computedAgo(earlier(24 * 3_600_000), NOW)).toBe("yesterday");
    expect(computedAgo(earlier(3 * 86_400_000), NOW)).toBe("3 days ago");
  });
});
