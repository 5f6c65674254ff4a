import { describe, expect, it } from "vitest";
import { dueMoment, latestMoment, nextMoment } from "./subscriptions-schedule.js";

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe("a subscription's scheduled moments (UTC)", () => {
  it("daily: today's hour once it has passed, else yesterday's", () => {
    const s = { frequency: "daily", hour: 9, weekday: null, dayOfMonth: null } as const;
    expect(iso(latestMoment(s, at("2026-03-04T09:00:00Z")))).toBe("2026-03-04T09:00:00.000Z");
    expect(iso(latestMoment(s, at("2026-03-04T08:59:59Z")))).toBe("2026-03-03T09:00:00.000Z");
    expect(iso(nextMoment(s, at("2026-03-04T10:00:00Z")))).toBe("2026-03-05T09:00:00.000Z");
  });

  it("weekly: the last such weekday at the hour", () => {
    // 2026-03-02 is a Monday.
    const s = { frequency: "weekly", hour: 7, weekday: "monday", dayOfMonth: null } as const;
    expect(iso(latestMoment(s, at("2026-03-02T07:00:00Z")))).toBe("2026-03-02T07:00:00.000Z");
    expect(iso(latestMoment(s, at("2026-03-02T06:00:00Z")))).toBe("2026-02-23T07:00:00.000Z");
    expect(iso(latestMoment(s, at("2026-03-08T23:00:00Z")))).toBe("2026-03-02T07:00:00.000Z");
    const sun = { ...s, weekday: "sunday" } as const;
    expect(iso(latestMoment(sun, at("2026-03-04T12:00:00Z")))).toBe("2026-03-01T07:00:00.000Z");
    expect(iso(nextMoment(sun, at("2026-03-04T12:00:00Z")))).toBe("2026-03-08T07:00:00.000Z");
  });

  it("monthly: the day of this month, else of the month before (across a year)", () => {
    const s = { frequency: "monthly", hour: 6, weekday: null, dayOfMonth: 15 } as const;
    expect(iso(latestMoment(s, at("2026-03-15T06:00:00Z")))).toBe("2026-03-15T06:00:00.000Z");
    expect(iso(latestMoment(s, at("2026-01-10T00:00:00Z")))).toBe("2025-12-15T06:00:00.000Z");
    expect(iso(nextMoment(s, at("2026-12-20T00:00:00Z")))).toBe("2027-01-15T06:00:00.000Z");
  });

  it("due once per moment, never for a moment before the schedule began", () => {
    const s = { frequency: "daily", hour: 9, weekday: null, dayOfMonth: null } as const;
    const made = at("2026-03-04T09:30:00Z");
    expect(dueMoment(s, at("2026-03-04T10:00:00Z"), made, null)).toBeNull();
    expect(dueMoment(s, at("2026-03-05T09:01:00Z"), made, null)).toBe("2026-03-05T09:00:00.000Z");
    expect(dueMoment(s, at("2026-03-05T20:00:00Z"), made, "2026-03-05T09:00:00.000Z")).toBeNull();
    // Down for three days: only the latest moment is due.
    expect(dueMoment(s, at("2026-03-08T09:05:00Z"), made, "2026-03-05T09:00:00.000Z")).toBe(
      "2026-03-08T09:00:00.000Z",
    );
  });
});
