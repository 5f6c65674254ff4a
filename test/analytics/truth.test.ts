import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../helpers/app.js";
import { engineAttribution } from "../../src/modules/analytics/reports/attribution.js";
import { resolvePeriod } from "../../src/modules/analytics/reports/period.js";
import { CHANNELS, type Dataset, generate } from "./truth/dataset.js";
import { AttributionTruth, type By, MODELS, type Model } from "./truth/attribution-truth.js";
import { sendDataset } from "./truth/send.js";
import { type GoalName, type Period, Truth, periodOf } from "./truth/truth.js";

/**
 * Every number a marketer reads, against truth computed independently from a seeded month
 * (truth/dataset.ts, truth/truth.ts): the overview with one goal or any, the per-goal table, rates
 * per channel on one basis, an event filter, funnels filtered by the session people entered in,
 * breakdowns and attribution. The definitions are docs/decisions/identity-analytics.md's
 * "One conversion model". Counts here are small enough to be exact (no estimate).
 */

let app: TestApp;
let t: Tenant;
let d: Dataset;
let truth: Truth;
const goalIds = new Map<GoalName, string>();
const NAMES: Record<string, GoalName> = { Purchase: "purchase", "Upgrade clicked": "upgrade_click" };

beforeAll(async () => {
  app = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
  t = await app.tenant();
  for (const [name, eventType] of Object.entries(NAMES)) {
    const res = await t.post("/api/conversion-goals", { name, eventType });
    expect(res.status).toBe(201);
    goalIds.set(eventType, res.body.id);
  }
  d = generate(41);
  truth = new Truth(d);
  await sendDataset(t, d);
}, 240_000);
afterAll(async () => app?.close());

const P30 = () => periodOf(30, d.now);
const P7 = () => periodOf(7, d.now);
const round = (x: number) => Math.round(x * 1e6) / 1e6;
const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

describe.each([
  ["30d", P30],
  ["7d", P7],
] as [string, () => Period][])("the overview over %s", (period, p) => {
  it("with one goal: visitors, its conversions, the visitors who converted, their rate", async () => {
    const res = await t.get(`/api/analytics/summary?${q({ period, goal: goalIds.get("purchase")! })}`);
    expect(res.status).toBe(200);
    const visitors = truth.visitors(p()).size;
    const converted = truth.convertedVisitors(p(), ["purchase"]);
    expect(res.body).toMatchObject({
      goal: { id: goalIds.get("purchase"), name: "Purchase" },
      visitors,
      conversions: truth.conversions(p(), ["purchase"]).length,
      convertedVisitors: converted,
      conversionRate: round(converted / visitors),
      revenue: truth.conversions(p(), ["purchase"]).reduce((s, c) => s + c.revenue, 0),
      // history counts: leads are dated when they were first known, not when they were sent
      leads: truth.leadsCreated(p()),
    });
    // a person who only ever paid is a conversion, never a converted visitor
    expect(truth.withoutVisit(p(), ["purchase"]).length).toBeGreaterThan(0);
    const unattributed = res.body.topChannels.find((c: { channel: string }) => c.channel === "unattributed");
    expect(unattributed?.conversions ?? 0).toBe(truth.withoutVisit(p(), ["purchase"]).length);
  });

  it("with any conversion goal (the default): every goal's conversions, and says so", async () => {
    const res = await t.get(`/api/analytics/summary?${q({ period })}`);
    const goals: GoalName[] = ["purchase", "upgrade_click"];
    const visitors = truth.visitors(p()).size;
    const converted = truth.convertedVisitors(p(), goals);
    expect(res.body).toMatchObject({
      goal: null,
      visitors,
      conversions: truth.conversions(p(), goals).length,
      convertedVisitors: converted,
      conversionRate: round(converted / visitors),
    });
  });

  it("per goal, side by side: each goal's converted visitors and rate over the same visitors", async () => {
    const res = await t.get(`/api/analytics/goals?${q({ period })}`);
    expect(res.status).toBe(200);
    const visitors = truth.visitors(p()).size;
    expect(res.body.visitors).toBe(visitors);
    for (const [name, goal] of Object.entries(NAMES)) {
      const row = res.body.goals.find((g: { name: string }) => g.name === name);
      const converted = truth.convertedVisitors(p(), [goal]);
      expect(row, name).toMatchObject({
        goalId: goalIds.get(goal),
        conversions: truth.conversions(p(), [goal]).length,
        convertedVisitors: converted,
        conversionRate: round(converted / visitors),
      });
    }
  });

  it("per channel, one basis: visitors whose first touch was the channel, and those of them who converted", async () => {
    const res = await t.get(`/api/analytics/summary?${q({ period, goal: goalIds.get("purchase")! })}`);
    const basis = truth.byFirstTouch(p(), ["purchase"]);
    const traffic = truth.channelTraffic(p());
    for (const channel of CHANNELS) {
      const row = res.body.topChannels.find((c: { channel: string }) => c.channel === channel);
      const want = basis.get(channel) ?? { visitors: 0, converted: 0 };
      if (!row) {
        expect(want.visitors + (traffic.get(channel) ?? 0), channel).toBe(0);
        continue;
      }
      expect(row, channel).toMatchObject({
        visitors: traffic.get(channel) ?? 0,
        firstTouchVisitors: want.visitors,
        convertedVisitors: want.converted,
        conversionRate: want.visitors > 0 ? round(want.converted / want.visitors) : 0,
      });
    }
  });
});

describe("filters that mean what they say", () => {
  it("the overview filtered to an event: the people who did it, never 'of 0 visitors'", async () => {
    const filter = JSON.stringify([{ key: "event", op: "is", value: "purchase" }]);
    const res = await t.get(
      `/api/analytics/summary?${q({ period: "30d", filter, goal: goalIds.get("purchase")! })}`,
    );
    expect(res.status).toBe(200);
    const buyers = new Set(
      d.server
        .filter((e) => e.type === "purchase" && e.ts >= P30().from)
        .map((e) => (e.lead ? `lead:${e.lead}` : e.visitor)),
    );
    expect(res.body.visitors).toBe(buyers.size);
    expect(res.body.convertedVisitors).toBe(buyers.size);
    expect(res.body.conversions).toBe(truth.conversions(P30(), ["purchase"]).length);
  });

  const steps = [{ eventType: "signup" }, { eventType: "activation" }, { eventType: "purchase" }];
  const counts = (body: { steps: { count: number }[] }) => body.steps.map((s) => s.count);

  it("a funnel unfiltered: signup → activation → purchase", async () => {
    const res = await t.post("/api/analytics/funnel", { steps, period: "30d" });
    expect(res.status).toBe(200);
    expect(counts(res.body)).toEqual(truth.funnel(P30()));
  });

  it("a funnel filtered to paid traffic selects people by the session they entered in; server steps count", async () => {
    const filter = [{ key: "channel", op: "is", value: ["paid_search", "paid_social"] }];
    const res = await t.post("/api/analytics/funnel", { steps, period: "30d", filter });
    const want = truth.funnel(P30(), 14, (s) => s.channel === "paid_search" || s.channel === "paid_social");
    expect(want[2]).toBeGreaterThan(0);
    expect(counts(res.body)).toEqual(want);
  });

  it("a funnel filtered by device does the same", async () => {
    const filter = [{ key: "device", op: "is", value: "mobile" }];
    const res = await t.post("/api/analytics/funnel", { steps, period: "30d", filter });
    expect(counts(res.body)).toEqual(truth.funnel(P30(), 14, (s) => truth.deviceOf(s) === "mobile"));
  });
});

describe("breakdowns on the same basis", () => {
  it("by device: traffic per device, and the rate over visitors whose first touch was on it", async () => {
    const res = await t.get(
      `/api/analytics/breakdown?${q({ by: "device", period: "30d", goal: goalIds.get("purchase")! })}`,
    );
    expect(res.status).toBe(200);
    const basis = truth.byFirstTouch(P30(), ["purchase"], truth.deviceOf);
    for (const device of ["mobile", "desktop"]) {
      const row = res.body.rows.find((r: { key: string }) => r.key === device);
      const want = basis.get(device)!;
      expect(row, device).toMatchObject({
        visitors: truth.visitors(P30(), (s) => truth.deviceOf(s) === device).size,
        firstTouchVisitors: want.visitors,
        convertedVisitors: want.converted,
        conversionRate: round(want.converted / want.visitors),
      });
    }
  });
});

describe("the other reports on the same model", () => {
  it("the time series with one goal: its conversions per day sum to the goal's, the visitors who converted", async () => {
    const res = await t.get(
      `/api/analytics/timeseries?${q({ period: "30d", goal: goalIds.get("purchase")! })}`,
    );
    expect(res.status).toBe(200);
    expect(res.body.goal).toMatchObject({ id: goalIds.get("purchase") });
    expect(res.body.totals).toMatchObject({
      visitors: truth.visitors(P30()).size,
      conversions: truth.conversions(P30(), ["purchase"]).length,
      convertedVisitors: truth.convertedVisitors(P30(), ["purchase"]),
    });
  });

  it("breakdown by channel: the overview's first-touch basis", async () => {
    const res = await t.get(
      `/api/analytics/breakdown?${q({ by: "channel", period: "30d", goal: goalIds.get("purchase")! })}`,
    );
    const basis = truth.byFirstTouch(P30(), ["purchase"]);
    for (const channel of CHANNELS) {
      const row = res.body.rows.find((r: { key: string }) => r.key === channel);
      const want = basis.get(channel);
      if (!want) continue;
      expect(row, channel).toMatchObject({
        firstTouchVisitors: want.visitors,
        convertedVisitors: want.converted,
        conversionRate: round(want.converted / want.visitors),
      });
    }
  });

  it.each(["first_touch", "last_touch", "linear"] as const)(
    "attribution %s of one goal's conversions",
    async (model) => {
      const res = await t.get(
        `/api/attribution/summary?${q({ model, period: "30d", goal: goalIds.get("purchase")! })}`,
      );
      expect(res.status).toBe(200);
      const want = truth.attribution(P30(), ["purchase"], model);
      const got = new Map(
        res.body.channels.map((c: { channel: string; creditedConversions: number }) => [
          c.channel,
          c.creditedConversions,
        ]),
      );
      for (const [channel, credit] of want)
        expect(got.get(channel), `${model} ${channel}`).toBeCloseTo(credit, 5);
      expect(got.size).toBe([...want.values()].filter((v) => v !== 0).length);
    },
  );

  it("weekly retention: cohorts by the first page view, returns by any event", async () => {
    const res = await t.get(`/api/analytics/retention?${q({ period: "30d", interval: "week" })}`);
    expect(res.status).toBe(200);
    expect(res.body.cohorts).toEqual(truth.retention(P30()));
  });

  it("a saved insight, its dashboard tile and its public link answer what the report does, goal included", async () => {
    const settings = { period: "30d", goal: goalIds.get("purchase") };
    const insight = await t.post("/api/insights", { kind: "summary", name: "Purchases", settings });
    expect(insight.status).toBe(201);
    const report = (
      await t.get(`/api/analytics/summary?${q({ period: "30d", goal: goalIds.get("purchase")! })}`)
    ).body;
    const saved = await t.get(`/api/insights/${insight.body.id}/results`);
    expect(saved.body.result).toEqual(report);
    const board = await t.post("/api/dashboards", {
      name: "Month",
      items: [{ insightId: insight.body.id, x: 0, y: 0, w: 12, h: 1 }],
    });
    const share = await t.post(`/api/dashboards/${board.body.id}/share`);
    const shared = await t.get(`/api/shared/dashboards/${share.body.token}`, { as: "none" });
    expect(shared.status).toBe(200);
    expect(shared.body.tiles[0].answer.result).toEqual(report);
  });
});

describe("attribution by source, medium and campaign (the engine), and revenue per channel", () => {
  type Row = { value: string; creditedConversions: number; revenue: number };
  const expectRows = (
    rows: Row[],
    want: Map<string, { credited: number; revenue: number }>,
    what: string,
  ) => {
    const got = new Map(rows.map((r) => [r.value, r]));
    for (const [value, w] of want) {
      if (w.credited === 0 && w.revenue === 0) continue;
      expect(got.get(value)?.creditedConversions, `${what} ${value}`).toBeCloseTo(w.credited, 5);
      expect(got.get(value)?.revenue, `${what} ${value} revenue`).toBeCloseTo(w.revenue, 5);
    }
    expect(rows.length, what).toBe(
      [...want.values()].filter((w) => w.credited !== 0 || w.revenue !== 0).length,
    );
  };
  const cases = MODELS.flatMap((model) =>
    (["source", "medium", "campaign"] as By[]).flatMap((by) =>
      [true, false].map((oneGoal) => [model, by, oneGoal] as [Model, By, boolean]),
    ),
  );

  it.each(cases)("%s by %s (one goal: %s) equals the truth", async (model, by, oneGoal) => {
    const goal: Record<string, string> = oneGoal ? { goal: goalIds.get("purchase")! } : {};
    const res = await t.get(`/api/attribution/summary?${q({ model, by, period: "30d", ...goal })}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ model, by });
    const goals: GoalName[] = oneGoal ? ["purchase"] : ["purchase", "upgrade_click"];
    const want = new AttributionTruth(d).credits(P30(), goals, model, by);
    expect(want.size).toBeGreaterThan(1);
    expectRows(res.body.rows, want, `${model} ${by}`);
    // the spec's channels stay what they were: the rollup's, for old clients
    const channels = await t.get(`/api/attribution/summary?${q({ model, period: "30d", ...goal })}`);
    expect(res.body.channels).toEqual(channels.body.channels);
  });

  it("by channel: rows are the channels, and equal the truth", async () => {
    const res = await t.get(
      `/api/attribution/summary?${q({ model: "time_decay", by: "channel", period: "30d" })}`,
    );
    expect(res.status).toBe(200);
    expect(res.body.by).toBe("channel");
    expect(res.body.rows).toEqual(
      res.body.channels.map((c: Row & { channel: string }) => ({
        value: c.channel,
        creditedConversions: c.creditedConversions,
        revenue: c.revenue,
      })),
    );
    expectRows(
      res.body.rows,
      new AttributionTruth(d).credits(P30(), ["purchase", "upgrade_click"], "time_decay", "channel"),
      "time_decay channel",
    );
  });

  it.each(MODELS)(
    "%s: the engine's per-touch credits summed by channel equal the rollup's",
    async (model) => {
      const res = await t.get(`/api/attribution/summary?${q({ model, period: "30d" })}`);
      const engine = await engineAttribution(
        app.app.deps,
        { id: t.projectId, workspaceId: "" },
        {
          model,
          by: "channel",
          period: resolvePeriod({ period: "30d" }),
          conds: [],
          goal: null,
        },
      );
      const rollup = new Map(res.body.channels.map((c: Row & { channel: string }) => [c.channel, c]));
      expect(engine.length).toBe(rollup.size);
      for (const row of engine) {
        const c = rollup.get(row.value) as { creditedConversions: number; revenue: number } | undefined;
        expect(
          Math.abs(row.creditedConversions - (c?.creditedConversions ?? Number.NaN)),
          row.value,
        ).toBeLessThan(1e-6);
        expect(Math.abs(row.revenue - (c?.revenue ?? Number.NaN)), row.value).toBeLessThan(1e-6);
      }
    },
  );

  it.each(["source", "medium"] as By[])(
    "by %s with a filter: the conversions the filter selects, as on the channel path",
    async (by) => {
      const filter = JSON.stringify([{ key: "device", op: "is", value: "mobile" }]);
      const res = await t.get(
        `/api/attribution/summary?${q({ model: "linear", by, period: "30d", filter })}`,
      );
      expect(res.status).toBe(200);
      const want = new AttributionTruth(d).credits(
        P30(),
        ["purchase", "upgrade_click"],
        "linear",
        by,
        (first) => first !== undefined && truth.deviceOf(first) === "mobile",
      );
      expect(want.size).toBeGreaterThan(1);
      expectRows(res.body.rows, want, `linear ${by} mobile`);
    },
  );

  it("the overview's topChannels carry each channel's revenue on the first-touch basis", async () => {
    for (const goals of [["purchase", "upgrade_click"], ["purchase"]] as GoalName[][]) {
      const goal: Record<string, string> = goals.length === 1 ? { goal: goalIds.get("purchase")! } : {};
      const res = await t.get(`/api/analytics/summary?${q({ period: "30d", ...goal })}`);
      const want = new AttributionTruth(d).revenueByFirstTouch(P30(), goals);
      expect([...want.values()].some((r) => r > 0)).toBe(true);
      for (const c of res.body.topChannels as { channel: string; revenue: number }[])
        expect(c.revenue, `${goals} ${c.channel}`).toBeCloseTo(want.get(c.channel) ?? 0, 6);
    }
  });

  it("with a filter (the engine path), topChannels' revenue is of the conversions it selects", async () => {
    const filter = JSON.stringify([{ key: "device", op: "is", value: "mobile" }]);
    const res = await t.get(`/api/analytics/summary?${q({ period: "30d", filter })}`);
    expect(res.status).toBe(200);
    const want = new AttributionTruth(d).revenueByFirstTouch(
      P30(),
      ["purchase", "upgrade_click"],
      (first) => first !== undefined && truth.deviceOf(first) === "mobile",
    );
    expect([...want.values()].some((r) => r > 0)).toBe(true);
    for (const c of res.body.topChannels as { channel: string; revenue: number }[])
      expect(c.revenue, c.channel).toBeCloseTo(want.get(c.channel) ?? 0, 6);
  });

  it("refuses a `by` it does not know, in the general error format", async () => {
    const res = await t.get(`/api/attribution/summary?${q({ by: "bogus" })}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
    expect(res.body.error).toContain("by");
    expect(res.body.requestId).toMatch(/^req_/);
  });
});

describe("history counts", () => {
  // Last: a new goal changes what "any conversion goal" counts for everything after it.
  it("a conversion goal created after its events were stored counts them, once its recount has run", async () => {
    const res = await t.post("/api/conversion-goals", { name: "Signup", eventType: "signup" });
    expect(res.status).toBe(201);
    await app.app.worker.drain();
    const summary = await t.get(`/api/analytics/summary?${q({ period: "30d", goal: res.body.id })}`);
    const signups = truth.conversions(P30(), ["signup"]).length;
    expect(signups).toBeGreaterThan(100);
    expect(summary.body).toMatchObject({
      conversions: signups,
      convertedVisitors: truth.convertedVisitors(P30(), ["signup"]),
    });
    const funnel = await t.post("/api/analytics/funnel", {
      steps: [{ eventType: "signup" }, { eventType: "purchase" }],
      period: "30d",
    });
    expect(funnel.body.steps[0].count).toBe(truth.funnel(P30())[0]);
  });
});
