import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../../test/helpers/app.js";
import { BROWSER_UA } from "../analytics.testing.js";
import { type DuckDBConnection, DuckDBInstance, listValue } from "@duckdb/node-api";
import type { ReadDeps } from "../../../platform/deps.js";
import { ENGINE_DDL } from "../engine/ddl.js";
import { plainRows } from "../engine/rows.js";
import { analyticsFunnel } from "./funnel.js";
import type { Period } from "./period.js";

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
    // and case as it is
    const upper = await b.post<Result>("/api/analytics/funnel", {
      steps: [{ eventType: "pageview", urlPattern: "*/SEARCH?q=[50%_off]" }, { eventType: "signup" }],
    });
    expect(upper.body.steps.map((s) => s.count)).toEqual([0, 0]);
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

describe("which events serve which steps", () => {
  const send = async (b: Tenant, visitorId: string, type: string, at: number, url = `${SHOP}/x`) => {
    const res = await b.post(
      "/api/events",
      { projectKey: b.publicKey, type, visitorId, url, timestamp: new Date(at).toISOString() },
      { as: "none", headers: { "user-agent": BROWSER_UA } },
    );
    expect(res.status).toBe(200);
  };

  it("events of one millisecond: the one matching the earlier step comes first, and one event serves one step", async () => {
    const b = await t.tenant();
    const at = Date.now() - 2 * DAY;
    // stored signup first, then the pricing page, both at the same millisecond
    await send(b, "tie", "signup", at);
    await send(b, "tie", "pageview", at, `${SHOP}/pricing`);
    // one pageview cannot be both steps of "pageview → pageview"; two of the same millisecond can
    await send(b, "one", "pageview", at + MIN);
    await send(b, "two", "pageview", at + MIN);
    await send(b, "two", "pageview", at + MIN);
    const tie = await b.post<Result>("/api/analytics/funnel", {
      steps: [{ eventType: "pageview", urlPattern: "*/pricing*" }, { eventType: "signup" }],
    });
    expect(tie.body.steps.map((s) => [s.count, s.medianSecondsFromPrevious])).toEqual([
      [1, null],
      [1, 0],
    ]);
    const twice = await b.post<Result>("/api/analytics/funnel", {
      steps: [{ eventType: "pageview" }, { eventType: "pageview" }],
    });
    // tie's pricing page, one's and two's first pageview enter; two's second one is step 2
    expect(twice.body.steps.map((s) => s.count)).toEqual([3, 1]);
  });

  it("an entry cut by the window gives way to a later entry that reaches further; the earliest wins among equals", async () => {
    const b = await t.tenant();
    const t0 = Date.now() - 10 * DAY;
    // late: the first pricing view's signup comes after its 2-day window; the second one goes all the way
    await send(b, "late", "pageview", t0, `${SHOP}/pricing`);
    await send(b, "late", "pageview", t0 + 3 * DAY, `${SHOP}/pricing?again`);
    await send(b, "late", "signup", t0 + 3 * DAY + MIN);
    await send(b, "late", "purchase", t0 + 3 * DAY + 3 * MIN);
    // early: two entries reach signup, neither purchase: the first counts (its signup 10 minutes on)
    await send(b, "early", "pageview", t0, `${SHOP}/pricing`);
    await send(b, "early", "signup", t0 + 10 * MIN);
    await send(b, "early", "pageview", t0 + 5 * DAY, `${SHOP}/pricing`);
    await send(b, "early", "signup", t0 + 5 * DAY + MIN);
    const res = await b.post<Result>("/api/analytics/funnel", { steps: STEPS, windowDays: 2 });
    expect(res.body.steps.map((s) => [s.count, s.medianSecondsFromPrevious])).toEqual([
      [2, null],
      [2, 330],
      [1, 120],
    ]);
  });
});

/**
 * The reference the engine's SQL is held to: the rules of docs/decisions/identity-analytics.md
 * ("Funnels") written plainly. A person's events sorted by time, then the earliest step matched,
 * then storage; for each entry (a first-step event inside the period) the steps in order, each the
 * earliest later event matching it within the window; the entry reaching furthest counts, the
 * earliest among equals.
 */
function reference(
  people: Map<string, { ts: number; mask: number; seq: number }[]>,
  n: number,
  windowMs: number,
  entryFrom: number,
  entryTo: number,
): { counts: number[]; medians: (number | null)[] } {
  const low = (m: number) => 31 - Math.clz32(m & -m);
  const counts = Array(n).fill(0) as number[];
  const gaps = Array.from({ length: n }, () => [] as number[]);
  for (const events of people.values()) {
    const hits = [...events].sort((a, b) => a.ts - b.ts || low(a.mask) - low(b.mask) || a.seq - b.seq);
    let best: number[] = [];
    for (let i = 0; i < hits.length; i++) {
      const entry = hits[i]!;
      if (!(entry.mask & 1) || entry.ts < entryFrom || entry.ts >= entryTo) continue;
      const times = [entry.ts];
      for (let j = i + 1; j < hits.length && times.length < n && hits[j]!.ts <= entry.ts + windowMs; j++)
        if (hits[j]!.mask & (1 << times.length)) times.push(hits[j]!.ts);
      if (times.length > best.length) best = times;
    }
    best.forEach((ts, k) => {
      counts[k]!++;
      if (k > 0) gaps[k]!.push((ts - best[k - 1]!) / 1000);
    });
  }
  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    const m = s.length >> 1;
    return s.length === 0 ? null : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
  };
  return { counts, medians: gaps.map((g, k) => (k === 0 ? null : median(g))) };
}

describe("the funnel's SQL against the reference (property)", () => {
  let duck: DuckDBConnection;
  let instance: DuckDBInstance;
  beforeAll(async () => {
    instance = await DuckDBInstance.create(":memory:");
    duck = await instance.connect();
    for (const ddl of ENGINE_DDL) await duck.run(ddl);
  });
  afterAll(() => {
    duck.closeSync();
    instance.closeSync();
  });
  // the engine as a read task sees it (engine/thread.ts): lists bound as lists, plain numbers
  const engine = {
    query: async <T>(text: string, params: unknown[] = []) => {
      const values = params.map((p) => (Array.isArray(p) ? listValue(p) : p));
      return plainRows((await duck.runAndReadAll(text, values as never)).getRowObjectsJS()) as T[];
    },
  };
  const deps = { engine } as unknown as ReadDeps;
  const HOUR = 3_600_000;
  const BASE_DAY = 20_000;
  // Step k: an event "e" holding k<k> = "y" (step 2 also a URL under /p); a mask says which it holds.
  const steps = [0, 1, 2, 3].map((k) => ({
    eventType: "e",
    conditions: { [`k${k}`]: "y" },
    ...(k === 2 ? { urlPattern: "*/p*" } : {}),
  }));
  const period: Period = { fromDay: BASE_DAY + 1, toDay: BASE_DAY + 3, from: "", to: "" };
  let run = 0;
  const ev = (visitor: string, hour: number, ms: number, mask: number) => ({
    visitor,
    hour,
    ms,
    mask,
    type: "e",
  });

  it("gives the reference's counts and medians for any events, ties within a millisecond included", async () => {
    const event = fc.record({
      visitor: fc.constantFrom("v0", "v1", "v2", "v3"),
      // few distinct times (4-hour slots, two milliseconds each): ties and events exactly at the
      // window's end are common
      hour: fc.integer({ min: 0, max: 30 }).map((h) => h * 4),
      ms: fc.integer({ min: 0, max: 1 }),
      mask: fc.integer({ min: 0, max: 15 }),
      type: fc.constantFrom("e", "e", "e", "e", "other"),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(event, { maxLength: 30 }),
        fc.integer({ min: 1, max: 2 }),
        async (events, days) => {
          const project = { id: `p${run++}`, workspaceId: "w" };
          await duck.run("insert into links values ($1, 'v0', 'L'), ($1, 'v1', 'L')", [project.id]);
          const people = new Map<string, { ts: number; mask: number; seq: number }[]>();
          for (const [seq, e] of events.entries()) {
            const ts = BASE_DAY * DAY + e.hour * HOUR + e.ms;
            const data = Object.fromEntries(
              [0, 1, 2, 3].filter((k) => e.mask & (1 << k)).map((k) => [`k${k}`, "y"]),
            );
            const url = e.mask & 4 ? `${SHOP}/p${seq}` : `${SHOP}/x`;
            await duck.run(
              `insert into events values ($1, $2, $3, null, $4, $5, null, $6, $7, $7, 's', 'direct', null, false, false)`,
              [
                `ev${String(seq).padStart(4, "0")}`,
                project.id,
                e.visitor,
                e.type,
                url,
                JSON.stringify(data),
                ts,
              ],
            );
            const person = e.visitor === "v0" || e.visitor === "v1" ? "l:L" : e.visitor;
            if (e.type === "e" && e.mask !== 0)
              people.set(person, [...(people.get(person) ?? []), { ts, mask: e.mask, seq }]);
          }
          const want = reference(people, 4, days * DAY, (BASE_DAY + 1) * DAY, (BASE_DAY + 4) * DAY);
          const got = await analyticsFunnel(deps, project, steps, days, period, undefined, []);
          expect(got.steps.map((s) => s.count)).toEqual(want.counts);
          // Seconds from milliseconds: the SQL halves a sum of milliseconds, the reference a sum of
          // seconds, so an even count's median may differ in the last bit.
          const micro = (x: number | null) => (x === null ? null : Math.round(x * 1e6));
          expect(got.steps.map((s) => micro(s.medianSecondsFromPrevious))).toEqual(want.medians.map(micro));
          for (let k = 1; k < got.steps.length; k++)
            expect(got.steps[k]!.count).toBeLessThanOrEqual(got.steps[k - 1]!.count);
        },
      ),
      {
        numRuns: 60,
        examples: [
          // v2: its signup exactly at the window's end counts; v3: an entry at the period's end does not
          [[ev("v2", 24, 0, 1), ev("v2", 48, 0, 2), ev("v3", 96, 0, 1)], 1],
          // one millisecond: stored signup first, the first step still comes first
          [[ev("v2", 30, 1, 2), ev("v2", 30, 1, 1), ev("v2", 30, 1, 4)], 1],
          // two entries reach signup: the earlier one counts (4 hours, not 1)
          [[ev("v2", 24, 0, 1), ev("v2", 28, 0, 2), ev("v2", 32, 0, 1), ev("v2", 33, 0, 2)], 1],
        ],
      },
    );
    // ~3 s alone; CI runs it beside other files on 2 cores
  }, 120_000);
});
