import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../../test/helpers/app.js";
import { DAY, type Dataset, generate } from "../../../../test/analytics/truth/dataset.js";
import { sendDataset } from "../../../../test/analytics/truth/send.js";
import {
  type Interval,
  type Measure,
  type TrendEvent,
  orderEvents,
  trendEvents,
  trendTruth,
} from "../../../../test/analytics/truth/trends-truth.js";
import { periodOf } from "../../../../test/analytics/truth/truth.js";

/**
 * POST /api/analytics/trends against truth computed independently (test/analytics/truth/): a
 * seeded month of page views, signups and purchases (a lead's devices one person), and "order"
 * events with a plan and an amount (sometimes not a number) for breakdowns by an event property.
 */

let app: TestApp;
let t: Tenant;
let d: Dataset;
let events: TrendEvent[];
let purchaseGoal: string;

beforeAll(async () => {
  app = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
  t = await app.tenant();
  const goal = await t.post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" });
  expect(goal.status).toBe(201);
  purchaseGoal = goal.body.id;
  const now = Date.now();
  d = generate(43, now, 260);
  await sendDataset(t, d);
  const extra = orderEvents(now);
  const basic = { authorization: `Basic ${Buffer.from(`${t.apiKey}:`).toString("base64")}` };
  const batch = extra.map((e) => ({
    type: "track",
    event: e.type,
    anonymousId: e.person.slice(2),
    properties: e.props,
    timestamp: new Date(e.ts).toISOString(),
  }));
  const res = await t.post("/v1/batch", { batch }, { as: "none", headers: basic });
  expect(res.status).toBe(200);
  events = trendEvents(d, extra);
}, 120_000);
afterAll(async () => app?.close());

type Line = {
  label: string;
  letter: string;
  breakdownValue?: string;
  data: { bucket: string; value: number | null }[];
  total: number | null;
  compare?: { data: { bucket: string; value: number | null }[]; total: number | null };
};

const trends = async (body: Record<string, unknown>) => {
  const res = await t.post("/api/analytics/trends", body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as {
    interval: string;
    period: { from: string; to: string };
    series: Line[];
    formulas: Line[];
  };
};

const close = (got: number | null, want: number | null) =>
  want === null ? got === null : got !== null && Math.abs(got - want) < 1e-5;

/** The line equals the truth: the same buckets, each value within rounding. */
function expectLine(
  got: { data: Line["data"]; total: number | null },
  want: ReturnType<typeof trendTruth>,
  what: string,
) {
  expect(
    got.data.map((p) => p.bucket),
    what,
  ).toEqual(want.data.map((p) => p.bucket));
  const wrong = got.data.filter((p, i) => !close(p.value, want.data[i]!.value));
  expect(
    wrong,
    `${what}: ${JSON.stringify(want.data.filter((_, i) => !close(got.data[i]!.value, want.data[i]!.value)))}`,
  ).toEqual([]);
  expect(close(got.total, want.total), `${what} total ${got.total} ≠ ${want.total}`).toBe(true);
}

const of = (type: string, where: (e: TrendEvent) => boolean = () => true) =>
  events.filter((e) => e.type === type && where(e));

describe("POST /api/analytics/trends (seeded truth)", () => {
  it("counts page views per day: total, unique people, DAU, WAU, MAU (30d)", async () => {
    const measures: Measure[] = ["total", "unique_people", "dau", "wau", "mau"];
    const body = await trends({
      period: "30d",
      series: measures.map((measure) => ({ event: "pageview", measure })),
    });
    const p = periodOf(30, d.now);
    expect(body.interval).toBe("day");
    expect(body.series.map((s) => s.letter)).toEqual(["A", "B", "C", "D", "E"]);
    for (const [i, measure] of measures.entries())
      expectLine(body.series[i]!, trendTruth(of("pageview"), { interval: "day", measure, ...p }), measure);
    // a person active on several of the days counts once in a week: WAU is not the sum of DAUs
    const wau = body.series[3]!.data.at(-1)!.value!;
    const dauSum = body.series[2]!.data.slice(-7).reduce((s, x) => s + x.value!, 0);
    expect(wau).toBeLessThan(dauSum);
  });

  it("measures a numeric property: sum, avg, min, max, median, p90 (non-numbers left out)", async () => {
    const measures: Measure[] = ["sum", "avg", "min", "max", "median", "p90"];
    const p = periodOf(30, d.now);
    const body = await trends({
      period: "30d",
      series: [
        ...measures.map((measure) => ({ event: "purchase", measure, property: "revenue" })),
        { event: "order", measure: "avg", property: "amount" },
        { event: "order", measure: "p90", property: "amount" },
      ],
    });
    for (const [i, measure] of measures.entries())
      expectLine(
        body.series[i]!,
        trendTruth(of("purchase"), { interval: "day", measure, property: "revenue", ...p }),
        measure,
      );
    // an empty day: 0 for a sum, null for the others
    const empty = body.series[0]!.data.findIndex((x) => x.value === 0);
    expect(empty).toBeGreaterThanOrEqual(0);
    expect(body.series[1]!.data[empty]!.value).toBeNull();
    expectLine(
      body.series[6]!,
      trendTruth(of("order"), { interval: "day", measure: "avg", property: "amount", ...p }),
      "order avg",
    );
    expectLine(
      body.series[7]!,
      trendTruth(of("order"), { interval: "day", measure: "p90", property: "amount", ...p }),
      "order p90",
    );
  });

  it.each([
    ["hour", "7d", 7],
    ["week", "30d", 30],
    ["month", "90d", 90],
  ] as [Interval, string, number][])("buckets by %s over %s", async (interval, period, days) => {
    const p = periodOf(days, d.now);
    const body = await trends({
      period,
      interval,
      series: [
        { event: "pageview" },
        { event: "signup", measure: "unique_people" },
        { event: "purchase", measure: "p90", property: "revenue" },
        // servers' events: a lead's (its userId) and an anonymous visitor's, each its person's
        { event: "purchase", measure: "unique_people" },
      ],
    });
    expectLine(
      body.series[3]!,
      trendTruth(of("purchase"), { interval, measure: "unique_people", ...p }),
      "buyers",
    );
    expectLine(body.series[0]!, trendTruth(of("pageview"), { interval, measure: "total", ...p }), "total");
    expectLine(
      body.series[1]!,
      trendTruth(of("signup"), { interval, measure: "unique_people", ...p }),
      "unique",
    );
    expectLine(
      body.series[2]!,
      trendTruth(of("purchase"), { interval, measure: "p90", property: "revenue", ...p }),
      "p90",
    );
  });

  it('breaks down by channel: the top 3 by events, the rest as "(other)", people counted once there', async () => {
    const p = periodOf(30, d.now);
    const body = await trends({
      period: "30d",
      series: [
        { event: "pageview" },
        { event: "pageview", measure: "unique_people" },
        { event: "pageview", measure: "wau" },
      ],
      breakdown: { property: "channel", limit: 3 },
    });
    const counts = new Map<string, number>();
    for (const e of of("pageview", (e) => e.ts >= p.from))
      counts.set(e.channel, (counts.get(e.channel) ?? 0) + 1);
    const top = [...counts]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .map(([c]) => c)
      .slice(0, 3);
    expect(body.series.map((s) => `${s.letter}:${s.breakdownValue}`)).toEqual(
      ["A", "B", "C"].flatMap((l) => [...top, "(other)"].map((v) => `${l}:${v}`)),
    );
    for (const line of body.series) {
      const v = line.breakdownValue!;
      const match = (e: TrendEvent) => (v === "(other)" ? !top.includes(e.channel) : e.channel === v);
      const measure = ({ A: "total", B: "unique_people", C: "wau" } as const)[line.letter as "A" | "B" | "C"];
      expectLine(
        line,
        trendTruth(of("pageview", match), { interval: "day", measure, ...p }),
        `${measure} ${v}`,
      );
    }
  });

  it("breaks a server event down by its person's first touch, and filters it so", async () => {
    const p = periodOf(30, d.now);
    const body = await trends({
      period: "30d",
      series: [{ event: "purchase", measure: "sum", property: "revenue" }],
      breakdown: { property: "channel", limit: 50 },
    });
    const channels = new Set(of("purchase", (e) => e.ts >= p.from).map((e) => e.channel));
    expect(channels.has("(none)")).toBe(true);
    expect(new Set(body.series.map((s) => s.breakdownValue))).toEqual(channels);
    for (const line of body.series)
      expectLine(
        line,
        trendTruth(
          of("purchase", (e) => e.channel === line.breakdownValue),
          { interval: "day", measure: "sum", property: "revenue", ...p },
        ),
        line.breakdownValue!,
      );
    const paid = await trends({
      period: "30d",
      filter: [{ key: "channel", op: "is", value: "paid_search" }],
      series: [{ event: "purchase", measure: "unique_people" }],
    });
    expectLine(
      paid.series[0]!,
      trendTruth(
        of("purchase", (e) => e.channel === "paid_search"),
        { interval: "day", measure: "unique_people", ...p },
      ),
      "purchases of paid_search people",
    );
  });

  it("counts active people over a long period and a server event's by its person's first touch", async () => {
    // 150 days: past what the engine keeps as one number of day bits, so it counts another way
    const to = Math.floor(d.now / DAY) * DAY;
    const p = { from: to - 149 * DAY, to: to + DAY };
    const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const long = await trends({
      period: "custom",
      from: iso(p.from),
      to: iso(to),
      series: [
        { event: "pageview", measure: "wau" },
        { event: "pageview", measure: "mau" },
      ],
    });
    expectLine(long.series[0]!, trendTruth(of("pageview"), { interval: "day", measure: "wau", ...p }), "wau");
    expectLine(long.series[1]!, trendTruth(of("pageview"), { interval: "day", measure: "mau", ...p }), "mau");
    const month = periodOf(30, d.now);
    const buyers = await trends({
      period: "30d",
      series: [{ event: "purchase", measure: "wau" }],
      breakdown: { property: "channel", limit: 50 },
    });
    expect(buyers.series.length).toBeGreaterThan(1);
    for (const line of buyers.series)
      expectLine(
        line,
        trendTruth(
          of("purchase", (e) => e.channel === line.breakdownValue),
          { interval: "day", measure: "wau", ...month },
        ),
        `buyers ${line.breakdownValue}`,
      );
  });

  it("breaks down by an event property, with a sum of another", async () => {
    const p = periodOf(30, d.now);
    const body = await trends({
      period: "30d",
      series: [{ event: "order", measure: "sum", property: "amount" }],
      breakdown: { property: "event.plan", limit: 2 },
    });
    // by events with a number (the series' own): basic 4/11 of them, pro 3/11
    expect(body.series.map((s) => s.breakdownValue)).toEqual(["basic", "pro", "(other)"]);
    for (const line of body.series) {
      const v = line.breakdownValue!;
      const match = (e: TrendEvent) =>
        v === "(other)" ? !["basic", "pro"].includes(String(e.props.plan)) : e.props.plan === v;
      expectLine(
        line,
        trendTruth(of("order", match), { interval: "day", measure: "sum", property: "amount", ...p }),
        v,
      );
    }
  });

  it("computes formulas over the series per bucket; a division by zero is null", async () => {
    const p = periodOf(30, d.now);
    const body = await trends({
      period: "30d",
      series: [{ event: "purchase" }, { event: "signup" }],
      formulas: [
        { name: "purchases per 100 signups", expression: "A / B * 100" },
        { expression: "(A - -B) / (B - B)" },
      ],
    });
    const a = trendTruth(of("purchase"), { interval: "day", measure: "total", ...p });
    const b = trendTruth(of("signup"), { interval: "day", measure: "total", ...p });
    const ratio = (x: number | null, y: number | null) => (y === 0 ? null : (x! / y!) * 100);
    const [f1, f2] = body.formulas;
    expect(f1).toMatchObject({ label: "purchases per 100 signups", letter: "F1" });
    expectLine(
      f1!,
      {
        data: a.data.map((x, i) => ({ bucket: x.bucket, value: ratio(x.value, b.data[i]!.value) })),
        total: ratio(a.total, b.total),
      },
      "A / B * 100",
    );
    expect(f1!.data.some((x) => x.value === null)).toBe(true);
    expect(f1!.data.some((x) => x.value !== null && x.value > 0)).toBe(true);
    expect(f2!.data.every((x) => x.value === null)).toBe(true);
    expect(f2!.total).toBeNull();
  });

  it("compares each series (and formula) with the previous period of the same length", async () => {
    const p = periodOf(7, d.now);
    const before = { from: p.from - 7 * DAY, to: p.from };
    const res = await t.post("/api/analytics/trends", {
      period: "7d",
      series: [{ event: "pageview", measure: "unique_people" }, { event: "signup" }],
      formulas: [{ expression: "B / A" }],
      compare: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.compare).toEqual({
      from: new Date(before.from).toISOString().slice(0, 10),
      to: new Date(before.to - DAY).toISOString().slice(0, 10),
    });
    const [a, b] = res.body.series as Line[];
    expectLine(a!, trendTruth(of("pageview"), { interval: "day", measure: "unique_people", ...p }), "now");
    const pa = trendTruth(of("pageview"), { interval: "day", measure: "unique_people", ...before });
    const pb = trendTruth(of("signup"), { interval: "day", measure: "total", ...before });
    expectLine(a!.compare!, pa, "previous A");
    expectLine(b!.compare!, pb, "previous B");
    const f = (res.body.formulas as Line[])[0]!;
    expect(close(f.compare!.total, pb.total! / pa.total!)).toBe(true);
  });

  it("applies the filter, a series' conditions, and the goal to $conversion", async () => {
    const p = periodOf(30, d.now);
    const body = await trends({
      period: "30d",
      filter: [{ key: "channel", op: "is", value: ["paid_search", "email"] }],
      series: [{ event: "pageview", measure: "unique_people" }],
    });
    const paid = (e: TrendEvent) => e.channel === "paid_search" || e.channel === "email";
    expectLine(
      body.series[0]!,
      trendTruth(of("pageview", paid), { interval: "day", measure: "unique_people", ...p }),
      "filtered",
    );
    const own = await trends({
      period: "30d",
      goal: purchaseGoal,
      series: [
        { event: "purchase", conditions: [{ key: "event.revenue", op: "gt", value: 100 }] },
        { event: "$conversion" },
      ],
    });
    const big = (e: TrendEvent) => Number(e.props.revenue) > 100;
    expectLine(
      own.series[0]!,
      trendTruth(of("purchase", big), { interval: "day", measure: "total", ...p }),
      "revenue > 100",
    );
    expectLine(
      own.series[1]!,
      trendTruth(of("purchase"), { interval: "day", measure: "total", ...p }),
      "$conversion",
    );
  });

  it("answers odd names without an error; formulas keep precedence", async () => {
    const body = await trends({
      period: "7d",
      series: [
        { event: 'sign"up\\', measure: "sum", property: 'a"b\\c.$d' },
        { event: "pageview", conditions: [{ key: "event.x'y", op: "gt", value: 1 }] },
      ],
      formulas: [{ expression: "-(A + 2) / (A * 0)" }, { expression: "2 + 3 * -A - 8 / 4 / 2" }],
    });
    expect(body.series.map((s) => s.total)).toEqual([0, 0]);
    // x / 0 is null; precedence and left-to-right: 2 + (3 * -0) - ((8 / 4) / 2)
    expect(body.formulas.map((f) => f.total)).toEqual([null, 1]);
    // events without the property are "(none)"; a breakdown of no events has no lines
    const p = periodOf(7, d.now);
    const odd = await trends({
      period: "7d",
      series: [{ event: "pageview" }],
      breakdown: { property: "event.k' $x" },
    });
    expect(odd.series.map((s) => [s.breakdownValue, s.total])).toEqual([
      ["(none)", trendTruth(of("pageview"), { interval: "day", measure: "total", ...p }).total],
    ]);
    const none = await trends({ series: [{ event: "never sent" }], breakdown: { property: "channel" } });
    expect(none.series).toEqual([]);
  });
});
