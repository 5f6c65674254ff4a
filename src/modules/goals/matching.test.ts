import { describe, expect, it } from "vitest";
import { matchesConversionGoal, urlMatches } from "./matching.js";
import { paceStatus, parseDeadline } from "./pace.js";

describe("urlMatches", () => {
  it.each([
    ["/pricing", "https://a.com/pricing", true],
    ["/pricing", "https://a.com/pricing/", true],
    ["/pricing", "https://a.com/pricing/team", false],
    ["/checkout/*", "https://a.com/checkout/done?x=1", true],
    ["/blog/*/comments", "https://a.com/blog/2024/post/comments", true],
    ["https://a.com/*", "https://a.com/x", true],
    ["https://a.com/*", "https://b.com/x", false],
    ["a.com/signup*", "https://a.com/signup?ref=x", true],
    ["*/thank-you", "https://shop.a.com/thank-you", true],
    ["/search?q=*", "https://a.com/search?q=shoes", true],
  ])("%s vs %s → %s", (pattern, url, expected) => {
    expect(urlMatches(pattern, url)).toBe(expected);
  });
});

describe("matchesConversionGoal", () => {
  const goal = {
    eventType: "purchase",
    urlPattern: "/checkout/*",
    conditions: { plan: "pro", amount: { gte: 10 }, "meta.src": { exists: true } },
  };
  const ev = (over: Partial<{ type: string; url: string; data: Record<string, unknown> }> = {}) => ({
    type: "purchase",
    url: "https://a.com/checkout/ok",
    data: { plan: "pro", amount: "49", meta: { src: "ad" } },
    ...over,
  });
  it("matches type, url and every condition (numeric strings compare as numbers)", () => {
    expect(matchesConversionGoal(goal, ev())).toBe(true);
  });
  it("fails on any one mismatch", () => {
    expect(matchesConversionGoal(goal, ev({ type: "form_submit" }))).toBe(false);
    expect(matchesConversionGoal(goal, ev({ url: "https://a.com/cart" }))).toBe(false);
    expect(matchesConversionGoal(goal, ev({ data: { plan: "free", amount: 49, meta: { src: "x" } } }))).toBe(
      false,
    );
    expect(matchesConversionGoal(goal, ev({ data: { plan: "pro", amount: 5, meta: { src: "x" } } }))).toBe(
      false,
    );
    expect(matchesConversionGoal(goal, ev({ data: { plan: "pro", amount: 50 } }))).toBe(false);
  });
  it("supports in, neq, contains and lt", () => {
    const g = {
      eventType: "e",
      conditions: { c: { in: ["a", "b"] }, d: { neq: 1 }, e: { contains: "PRO" }, f: { lt: 3 } },
    };
    expect(
      matchesConversionGoal(g, { type: "e", url: "/", data: { c: "b", d: 2, e: "a pro plan", f: 2 } }),
    ).toBe(true);
    expect(
      matchesConversionGoal(g, { type: "e", url: "/", data: { c: "z", d: 2, e: "a pro plan", f: 2 } }),
    ).toBe(false);
  });
});

describe("paceStatus", () => {
  const day = 86_400_000;
  const base = { metric: "signups", target: 100, startedAt: 0, deadline: 10 * day };
  it("projects counts linearly to the deadline", () => {
    expect(paceStatus({ ...base, current: 50 }, 5 * day)).toBe("on_track");
    expect(paceStatus({ ...base, current: 45 }, 5 * day)).toBe("at_risk");
    expect(paceStatus({ ...base, current: 30 }, 5 * day)).toBe("behind");
    expect(paceStatus({ ...base, current: 100 }, 5 * day)).toBe("completed");
  });
  it("takes level metrics as they are", () => {
    expect(paceStatus({ ...base, metric: "mrr", current: 85 }, 5 * day)).toBe("at_risk");
  });
  it("parses ISO dates strictly", () => {
    expect(parseDeadline("2026-12-31")).toBe(Date.UTC(2026, 11, 31) + day - 1);
    expect(parseDeadline("2026-12-31T10:00:00Z")).toBe(Date.UTC(2026, 11, 31, 10));
    expect(parseDeadline("2026-13-01")).toBeNull();
    expect(parseDeadline("31/12/2026")).toBeNull();
  });
});
