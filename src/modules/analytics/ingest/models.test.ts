import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { creditsFor } from "./credit-store.js";
import { ATTRIBUTION_MODELS, type Touch, creditChannels, creditTouches } from "./models.js";

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);
const touches = (...channels: string[]): Touch[] =>
  channels.map((channel, i) => ({ channel, ts: T0 + i * DAY }));
const close = (actual: number[], expected: number[]) => {
  expect(actual).toHaveLength(expected.length);
  for (const [i, a] of actual.entries()) expect(a).toBeCloseTo(expected[i]!, 10);
};

describe("attribution models, hand-computed", () => {
  const four = touches("organic_search", "email", "paid_social", "direct");
  const conv = T0 + 3 * DAY;

  it("first_touch and last_touch give everything to one end", () => {
    close(creditTouches("first_touch", four, conv), [1, 0, 0, 0]);
    close(creditTouches("last_touch", four, conv), [0, 0, 0, 1]);
  });

  it("linear splits evenly", () => {
    close(creditTouches("linear", four, conv), [0.25, 0.25, 0.25, 0.25]);
    close(creditTouches("linear", touches("a", "b", "c"), conv), [1 / 3, 1 / 3, 1 / 3]);
  });

  it("position_based is 40/20/40, one touch 100%, two touches 50/50", () => {
    close(creditTouches("position_based", four, conv), [0.4, 0.1, 0.1, 0.4]);
    close(creditTouches("position_based", touches("a", "b", "c"), conv), [0.4, 0.2, 0.4]);
    close(creditTouches("position_based", touches("a", "b"), conv), [0.5, 0.5]);
    close(creditTouches("position_based", touches("a"), conv), [1]);
  });

  it("time_decay halves the weight every 7 days before the conversion", () => {
    // touches 14 days and 0 days before: weights 1/4 and 1 → 0.2 / 0.8
    const two = [
      { channel: "email", ts: T0 },
      { channel: "direct", ts: T0 + 14 * DAY },
    ];
    close(creditTouches("time_decay", two, T0 + 14 * DAY), [0.2, 0.8]);
    const pair = [
      { channel: "a", ts: T0 },
      { channel: "b", ts: T0 + 7 * DAY },
    ];
    // 7 days and 0 days before: 1/2 and 1 → 1/3, 2/3
    close(creditTouches("time_decay", pair, T0 + 7 * DAY), [1 / 3, 2 / 3]);
  });

  it("orders touches by time whatever order they come in, and merges a channel's touches", () => {
    const shuffled = [four[3]!, four[0]!, four[2]!, four[1]!];
    close(creditTouches("position_based", shuffled, conv), [0.4, 0.4, 0.1, 0.1]);
    const byChannel = creditChannels("position_based", touches("email", "direct", "email"), conv);
    expect(byChannel.get("email")).toBeCloseTo(0.8, 10);
    expect(byChannel.get("direct")).toBeCloseTo(0.2, 10);
  });

  it("no touches, no credit", () => {
    expect(creditTouches("linear", [], conv)).toEqual([]);
  });
});

describe("credits of one conversion sum to exactly 1", () => {
  const touchArb = fc.record({
    channel: fc.constantFrom("direct", "email", "organic_search", "paid_search", "referral"),
    ts: fc.integer({ min: T0 - 30 * DAY, max: T0 }),
  });
  it("for every model, any touches, summed in any order", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...ATTRIBUTION_MODELS),
        fc.array(touchArb, { minLength: 1, maxLength: 40 }),
        (model, ts) => {
          const credits = creditTouches(model, ts, T0);
          expect(credits).toHaveLength(ts.length);
          for (const c of credits) expect(c).toBeGreaterThanOrEqual(0);
          expect(credits.reduce((a, b) => a + b, 0)).toBe(1);
          expect([...credits].reverse().reduce((a, b) => a + b, 0)).toBe(1);
          expect([...creditChannels(model, ts, T0).values()].reduce((a, b) => a + b, 0)).toBe(1);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("as stored per conversion: every model's channel credits, with or without touches in the window", () => {
    fc.assert(
      fc.property(
        fc.array(touchArb, { maxLength: 30 }),
        fc.integer({ min: T0 - 40 * DAY, max: T0 + DAY }),
        (ts, at) => {
          const credits = creditsFor(ts, { ts: at, channel: "direct" });
          expect(Object.keys(credits).sort()).toEqual([...ATTRIBUTION_MODELS].sort());
          for (const byChannel of Object.values(credits))
            expect(Object.values(byChannel).reduce((a, b) => a + b, 0)).toBe(1);
        },
      ),
      { numRuns: 300 },
    );
  });
});
