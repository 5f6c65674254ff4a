import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { BROWSER_UA } from "./analytics.testing.js";
import { type StepHit, funnelResult, personProgress } from "./funnel.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const BOT = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const MIN = 60_000;
const DAY = 86_400_000;
const SHOP = "https://shop.example.com";
const STEPS = [
  { eventType: "pageview", urlPattern: "*/pricing*" },
  { eventType: "signup" },
  { eventType: "purchase" },
];

type Result = {
  steps: {
    index: number;
    label: string;
    count: number;
    conversionFromPrevious: number;
    conversionFromStart: number;
    medianSecondsFromPrevious: number | null;
  }[];
};

/**
 * Hand-computed (steps: a pricing pageview, signup, purchase; window 14 days; period 30d):
 *  alice: pricing (from a newsletter), signup +10 min, purchase +60 min → 3 steps (600 s, 3000 s)
 *  bob: pricing, purchase +5 min, signup +20 min                     → 2 steps (1200 s): out of order
 *  carol, one lead with two visitors: phone pricing, laptop signup +30 min, phone purchase +120 min
 *                                                                    → 3 steps (1800 s, 5400 s)
 *  dave: a pageview of /home, then signup                            → never enters
 *  erin: pricing 20 days ago, signup 15 days after                   → 1 step: outside the window
 *  a crawler doing all three                                         → left out
 * Counts 4 → 3 → 2; medians 1200 s and 4200 s.
 */
async function seed(a: Tenant): Promise<void> {
  const t0 = Date.now() - 3 * DAY;
  const send = async (visitorId: string, type: string, at: number, url = `${SHOP}/x`, ua = BROWSER_UA) => {
    const res = await a.post(
      "/api/events",
      { projectKey: a.publicKey, type, visitorId, url, timestamp: new Date(at).toISOString() },
      { as: "none", headers: { "user-agent": ua } },
    );
    expect(res.status).toBe(200);
  };
  await send("alice", "pageview", t0, `${SHOP}/pricing?plan=pro&utm_source=newsletter&utm_medium=email`);
  await send("alice", "signup", t0 + 10 * MIN);
  await send("alice", "purchase", t0 + 60 * MIN);
  await send("bob", "pageview", t0, `${SHOP}/pricing`);
  await send("bob", "purchase", t0 + 5 * MIN);
  await send("bob", "signup", t0 + 20 * MIN);
  await send("c_phone", "pageview", t0, `${SHOP}/pricing`);
  await send("c_laptop", "signup", t0 + 30 * MIN);
  await send("c_phone", "purchase", t0 + 120 * MIN);
  for (const visitorId of ["c_phone", "c_laptop"])
    expect((await a.post("/api/identity", { visitorId, leadId: "carol" })).status).toBe(200);
  await send("dave", "pageview", t0, `${SHOP}/home`);
  await send("dave", "signup", t0 + MIN);
  await send("erin", "pageview", t0 - 17 * DAY, `${SHOP}/pricing`);
  await send("erin", "signup", t0 - 2 * DAY);
  await send("crawler", "pageview", t0, `${SHOP}/pricing`, BOT);
  await send("crawler", "signup", t0 + MIN, `${SHOP}/x`, BOT);
  await send("crawler", "purchase", t0 + 2 * MIN, `${SHOP}/x`, BOT);
}

describe("POST /api/analytics/funnel", () => {
  let a: Tenant;
  beforeAll(async () => {
    a = await t.tenant();
    await seed(a);
  });

  it("counts people through the steps in order within the window (hand-computed)", async () => {
    const res = await a.post<Result>("/api/analytics/funnel", { steps: STEPS, period: "30d" });
    expect(res.status).toBe(200);
    expect(res.body.steps).toEqual([
      {
        index: 0,
        label: "pageview */pricing*",
        count: 4,
        conversionFromPrevious: 1,
        conversionFromStart: 1,
        medianSecondsFromPrevious: null,
      },
      {
        index: 1,
        label: "signup",
        count: 3,
        conversionFromPrevious: 0.75,
        conversionFromStart: 0.75,
        medianSecondsFromPrevious: 1200,
      },
      {
        index: 2,
        label: "purchase",
        count: 2,
        conversionFromPrevious: 2 / 3,
        conversionFromStart: 0.5,
        medianSecondsFromPrevious: 4200,
      },
    ]);
  });

  it("a wider window lets erin through; a 7-day period leaves her out; conditions filter on data", async () => {
    const wide = await a.post<Result>("/api/analytics/funnel", {
      steps: STEPS,
      windowDays: 30,
      period: "30d",
    });
    expect(wide.body.steps.map((s) => s.count)).toEqual([4, 4, 2]);
    const week = await a.post<Result>("/api/analytics/funnel", { steps: STEPS, period: "7d" });
    expect(week.body.steps.map((s) => s.count)).toEqual([3, 3, 2]);
    const none = await a.post<Result>("/api/analytics/funnel", {
      steps: [{ eventType: "pageview", conditions: { plan: "enterprise" } }, { eventType: "signup" }],
    });
    expect(none.body.steps.map((s) => s.count)).toEqual([0, 0]);
  });

  it("breaks down by the entry session's values (hand-computed)", async () => {
    type Broken = Result & { breakdown: { by: string; groups: { key: string; steps: Result["steps"] }[] } };
    const res = await a.post<Broken>("/api/analytics/funnel", {
      steps: STEPS,
      period: "30d",
      breakdownBy: "channel",
    });
    expect(res.status).toBe(200);
    expect(res.body.steps.map((s) => s.count)).toEqual([4, 3, 2]);
    // direct: bob (2 steps), carol (3), erin (1); email: alice (3).
    const groups = res.body.breakdown.groups.map((g) => ({
      key: g.key,
      counts: g.steps.map((s) => s.count),
      medians: g.steps.map((s) => s.medianSecondsFromPrevious),
    }));
    expect(res.body.breakdown.by).toBe("channel");
    expect(groups).toEqual([
      { key: "direct", counts: [3, 2, 1], medians: [null, 1500, 5400] },
      { key: "email", counts: [1, 1, 1], medians: [null, 600, 3000] },
    ]);
    const bySource = await a.post<Broken>("/api/analytics/funnel", {
      steps: STEPS,
      period: "30d",
      breakdownBy: "source",
    });
    expect(bySource.body.breakdown.groups.map((g) => [g.key, g.steps[0]!.count])).toEqual([
      ["(none)", 3],
      ["newsletter", 1],
    ]);
    const plain = await a.post<Result & { breakdown?: unknown }>("/api/analytics/funnel", { steps: STEPS });
    expect(plain.body.breakdown).toBeUndefined();
    const bad = await a.post("/api/analytics/funnel", { steps: STEPS, breakdownBy: "event_type" });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/breakdownBy must be one of/);
  });

  it("URL patterns take ?, [, % and _ literally, on both databases", async () => {
    const b = await t.tenant();
    const send = async (visitorId: string, url: string, type = "pageview") => {
      const res = await b.post(
        "/api/events",
        { projectKey: b.publicKey, type, visitorId, url },
        { as: "none", headers: { "user-agent": BROWSER_UA } },
      );
      expect(res.status).toBe(200);
    };
    await send("p1", `${SHOP}/search?q=[50%_off]`);
    await send("p2", `${SHOP}/searchXq=A50ZoffB`);
    for (const v of ["p1", "p2"]) await send(v, `${SHOP}/x`, "signup");
    const res = await b.post<Result>("/api/analytics/funnel", {
      steps: [{ eventType: "pageview", urlPattern: "*/search?q=[50%_off]" }, { eventType: "signup" }],
    });
    expect(res.body.steps.map((s) => s.count)).toEqual([1, 1]);
  });

  it("refuses bad steps with 400", async () => {
    for (const body of [
      { steps: [{ eventType: "pageview" }] },
      { steps: Array.from({ length: 11 }, () => ({ eventType: "x" })) },
      { steps: STEPS, windowDays: 91 },
      { steps: [{ eventType: "a", color: "red" }, { eventType: "b" }] },
      { steps: STEPS, period: "1y" },
    ]) {
      const res = await a.post<{ code: string }>("/api/analytics/funnel", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
    }
  });

  it("another workspace sees none of it", async () => {
    const b = await t.tenant();
    const res = await b.post<Result>("/api/analytics/funnel", { steps: STEPS });
    expect(res.body.steps.map((s) => s.count)).toEqual([0, 0, 0]);
  });
});

describe("funnel arithmetic", () => {
  it("a step's count never exceeds the one before it, for any events (property)", () => {
    const hit = fc.record({ ts: fc.integer({ min: 0, max: 50 }), mask: fc.integer({ min: 0, max: 15 }) });
    fc.assert(
      fc.property(
        fc.array(fc.array(hit, { maxLength: 12 }), { maxLength: 8 }),
        fc.integer({ min: 1, max: 30 }),
        (people, window) => {
          const steps = [{ eventType: "a" }, { eventType: "b" }, { eventType: "c" }, { eventType: "d" }];
          const progress = people.map((hits: StepHit[]) =>
            personProgress(
              [...hits].sort((x, y) => x.ts - y.ts),
              4,
              window,
              0,
              40,
            ),
          );
          const result = funnelResult(steps, progress);
          for (let k = 1; k < result.length; k++)
            expect(result[k]!.count).toBeLessThanOrEqual(result[k - 1]!.count);
          // Each step's times are in order and within the window of the entry.
          for (const times of progress)
            for (let k = 1; k < times.length; k++) {
              expect(times[k]!).toBeGreaterThanOrEqual(times[k - 1]!);
              expect(times[k]! - times[0]!).toBeLessThanOrEqual(window);
            }
        },
      ),
    );
  });

  it("the entry that reaches furthest counts: a later first step can do better when the window cut an earlier one", () => {
    const hits = [
      { ts: 0, mask: 1 },
      { ts: 20, mask: 1 },
      { ts: 25, mask: 2 },
      { ts: 26, mask: 4 },
    ];
    expect(personProgress(hits, 3, 10, 0, 100)).toEqual([20, 25, 26]);
    // Entries outside the period do not count.
    expect(personProgress(hits, 3, 10, 21, 100)).toEqual([]);
  });
});
