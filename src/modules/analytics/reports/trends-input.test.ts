import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../../test/helpers/app.js";
import { TREND_INTERVALS, TREND_MEASURES } from "./trends-schema.js";

/** POST /api/analytics/trends refuses what it cannot answer with a 400 naming the field, before reading anything. */

let app: TestApp;
let t: Tenant;
beforeAll(async () => {
  app = await startTestApp();
  t = await app.tenant();
});
afterAll(async () => app?.close());

describe("POST /api/analytics/trends: bad input", () => {
  it.each([
    ["an unknown measure", { series: [{ event: "pageview", measure: "count" }] }, "measure"],
    [
      "a numeric measure without a property",
      { series: [{ event: "purchase", measure: "sum" }] },
      "property is required",
    ],
    ["too many buckets", { period: "90d", interval: "hour", series: [{ event: "pageview" }] }, "744"],
    ["WAU by week", { interval: "week", series: [{ event: "pageview", measure: "wau" }] }, "interval day"],
    [
      "a formula cut short",
      { series: [{ event: "a" }], formulas: [{ expression: "A +" }] },
      "ends too early",
    ],
    ["an unclosed parenthesis", { series: [{ event: "a" }], formulas: [{ expression: "(A" }] }, "not closed"],
    [
      "an unknown letter",
      { series: [{ event: "a" }, { event: "b" }], formulas: [{ expression: "A / C" }] },
      "no series C",
    ],
    [
      "code in a formula",
      { series: [{ event: "a" }], formulas: [{ expression: "A; process.exit()" }] },
      "unexpected",
    ],
    ["an unknown breakdown", { series: [{ event: "a" }], breakdown: { property: "lead.plan" } }, "breakdown"],
    ["eleven series", { series: Array.from({ length: 11 }, () => ({ event: "a" })) }, "series"],
    ["an unknown goal", { goal: "nope", series: [{ event: "a" }] }, "goal"],
    [
      "a formula nested too deep",
      { series: [{ event: "a" }], formulas: [{ expression: `${"(".repeat(60)}A${")".repeat(60)}` }] },
      "nested",
    ],
  ] as [string, Record<string, unknown>, string][])("refuses %s with a 400", async (_what, body, says) => {
    const res = await t.post("/api/analytics/trends", body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
    expect(res.body.error).toContain(says);
  });

  it("answers any formula text with a result or a 400, never an error", async () => {
    const text = fc.string({ unit: fc.constantFrom(..."AB01.9 +-*/()xé;"), maxLength: 60 });
    await fc.assert(
      fc.asyncProperty(text, async (expression) => {
        const res = await t.post("/api/analytics/trends", {
          series: [{ event: "a" }, { event: "b" }],
          formulas: [{ expression: expression || "A" }],
        });
        expect([200, 400], JSON.stringify(res.body)).toContain(res.status);
      }),
      { numRuns: 40 },
    );
  });

  it("answers any combination of measure, interval, period and breakdown with a result or a 400", async () => {
    const body = fc.record({
      measure: fc.constantFrom(...TREND_MEASURES),
      property: fc.option(fc.constantFrom("revenue", 'a"b', "x.y"), { nil: undefined }),
      interval: fc.constantFrom(...TREND_INTERVALS),
      period: fc.constantFrom("7d", "30d", "90d"),
      breakdown: fc.option(fc.constantFrom("channel", "device", "country", "event.plan"), { nil: undefined }),
      compare: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const res = await t.post("/api/analytics/trends", {
          series: [{ event: "pageview", measure: b.measure, property: b.property }],
          interval: b.interval,
          period: b.period,
          compare: b.compare,
          ...(b.breakdown ? { breakdown: { property: b.breakdown } } : {}),
        });
        expect([200, 400], JSON.stringify(res.body)).toContain(res.status);
      }),
      { numRuns: 40 },
    );
  });
});
