import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ReadPool } from "../../src/platform/read-pool/pool.js";
import { InlineReads, type ReadRunner } from "../../src/platform/read-pool/task.js";
import { type Tenant, type TestApp, startTestApp } from "../helpers/app.js";

/**
 * No report holds the event loop: the heaviest reads the API accepts (filtered reports, funnels,
 * retention, paths, cohorts, filtered lead lists, a shared dashboard of them) run on the read
 * pool's threads (their raw-data questions on the analytics engine's) while `/healthz` is sampled
 * every 50 ms over real HTTP. The same load with the reports on the request thread (READ_WORKERS=0)
 * is measured beside it, for the log.
 */

const VISITORS = 6_000;
const PAGES_PER_VISITOR = 12;
const DAY = 86_400_000;
const CHANNELS = [
  { utm_source: "google", utm_medium: "cpc" },
  { utm_source: "newsletter", utm_medium: "email" },
  { utm_source: "facebook", utm_medium: "paid_social" },
  {},
];
const AGENTS = [
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1",
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36",
];

/** Web visits through Segment's batch API (sessions, channels, touchpoints, identity, conversions). */
async function seed(t: Tenant, now: number) {
  let batch: unknown[] = [];
  const flush = async () => {
    const res = await t.post(
      "/v1/batch",
      { batch },
      { as: "none", headers: { authorization: basic(t.apiKey) } },
    );
    expect(res.status).toBe(200);
    batch = [];
  };
  for (let v = 0; v < VISITORS; v++) {
    const start = now - (v % 28) * DAY - (v % 1000) * 1000;
    const utm = CHANNELS[v % CHANNELS.length]!;
    const query = new URLSearchParams(utm as Record<string, string>).toString();
    for (let i = 0; i < PAGES_PER_VISITOR; i++) {
      const page = i === 0 ? "/" : i % 4 === 0 ? "/pricing" : `/docs/${(v + i) % 40}`;
      batch.push({
        type: "page",
        anonymousId: `anon-${v}`,
        userId: v % 5 === 0 ? `user-${v}@example.com` : undefined,
        properties: { url: `https://shop.example.com${page}${i === 0 && query ? `?${query}` : ""}` },
        context: { userAgent: AGENTS[v % 2] },
        timestamp: new Date(start + i * 60_000).toISOString(),
      });
      if (batch.length === 1000) await flush();
    }
    if (v % 7 === 0) {
      batch.push({
        type: "track",
        anonymousId: `anon-${v}`,
        event: "purchase",
        properties: { revenue: 20 + (v % 50) },
        timestamp: new Date(start + PAGES_PER_VISITOR * 60_000).toISOString(),
      });
    }
  }
  if (batch.length > 0) await flush();
}

const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString("base64")}`;

/** Ten conditions that each need raw events (no rollup answers them). */
const HEAVY_FILTER = [
  { key: "device", op: "is", value: ["mobile", "desktop"] },
  { key: "page", op: "matches", value: "*/pricing*" },
  { key: "browser", op: "is_not", value: "Firefox" },
  { key: "channel", op: "is_not", value: "referral" },
  { key: "source", op: "is_not", value: "bing" },
  { key: "event", op: "is", value: ["pageview", "purchase"] },
  { key: "os", op: "is_not", value: "Windows" },
  { key: "landing_page", op: "contains", value: "/" },
  { key: "page", op: "contains", value: "shop" },
  { key: "campaign", op: "is_not", value: "zzz" },
];

interface Stall {
  worstMs: number;
  samples: number;
}

/** Samples GET /healthz every 50 ms until `done` settles; the worst latency seen. */
async function sampleHealth(base: string, done: Promise<unknown>): Promise<Stall> {
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  let worstMs = 0;
  let samples = 0;
  while (!finished) {
    const t0 = performance.now();
    const res = await fetch(`${base}/healthz`);
    await res.text();
    worstMs = Math.max(worstMs, performance.now() - t0);
    samples++;
    await new Promise((r) => setTimeout(r, 50));
  }
  return { worstMs, samples };
}

async function heavyLoad(t: Tenant, shareToken: string, base: string) {
  const filter = encodeURIComponent(JSON.stringify(HEAVY_FILTER));
  const asks: Promise<{ status: number }>[] = [
    t.get(`/api/analytics/summary?period=30d&filter=${filter}`),
    t.get(`/api/analytics/breakdown?by=device&period=30d&filter=${filter}`),
    t.get(`/api/analytics/timeseries?period=30d&filter=${filter}`),
    t.post("/api/analytics/funnel", {
      steps: [
        { eventType: "pageview", urlPattern: "*/" },
        { eventType: "pageview", urlPattern: "*/pricing*" },
        { eventType: "purchase" },
      ],
      period: "30d",
      filter: HEAVY_FILTER.slice(0, 4),
    }),
    t.get(`/api/analytics/retention?period=30d&filter=${filter}`),
    t.post("/api/analytics/paths", { start: { page: "https://shop.example.com/" }, steps: 5, period: "30d" }),
    t.post("/api/analytics/paths", {
      start: { page: "https://shop.example.com/pricing" },
      direction: "before",
      steps: 5,
      period: "30d",
      filter: HEAVY_FILTER.slice(0, 2),
    }),
    t.get(`/api/leads?filter=${encodeURIComponent(JSON.stringify(HEAVY_FILTER.slice(0, 3)))}`),
    t.post("/api/cohorts/preview", {
      definition: { conditions: [{ type: "event", event: "pageview", did: true, withinDays: 30 }] },
    }),
    fetch(`${base}/api/shared/dashboards/${shareToken}`).then((r) => ({ status: r.status })),
    // anyone's remote evaluation of a cohort-targeted flag computes the cohort's membership
    fetch(`${base}/api/eval/${t.publicKey}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ attributes: { id: "anon-7" } }),
    }).then((r) => ({ status: r.status })),
  ];
  return Promise.all(asks);
}

/** A flag on for the people who saw /pricing in the last 30 days (a cohort over the events). */
async function cohortFlag(t: Tenant): Promise<string> {
  const cohort = await t.post("/api/cohorts", {
    name: "Saw pricing",
    definition: {
      conditions: [
        {
          type: "event",
          event: "pageview",
          where: [{ key: "page", op: "matches", value: "*/pricing*" }],
          withinDays: 30,
        },
      ],
    },
  });
  expect(cohort.status).toBe(201);
  const flag = await t.post("/api/flags", {
    key: "pricing-banner",
    valueType: "boolean",
    defaultValue: false,
    rules: [{ type: "force", condition: { id: { $inGroup: cohort.body.id } }, value: true }],
  });
  expect(flag.status).toBe(201);
  return cohort.body.id as string;
}

async function dashboardOf(t: Tenant): Promise<string> {
  const filter = HEAVY_FILTER;
  const ids: string[] = [];
  // A dashboard as the issue's attacker opened: many filtered tiles, computed at once.
  const tiles = [
    ["summary", { period: "30d", filter }],
    ["timeseries", { period: "30d", filter }],
    ["retention", { period: "30d", filter }],
    ["attribution", { period: "30d", filter }],
    ...(
      [
        "browser",
        "device",
        "os",
        "landing_page",
        "source",
        "campaign",
        "referrer_domain",
        "event_type",
      ] as const
    ).map((by) => ["breakdown", { by, period: "30d", filter }] as const),
  ] as const;
  for (const [kind, settings] of tiles) {
    const res = await t.post("/api/insights", { kind, name: kind, settings });
    expect(res.status).toBe(201);
    ids.push(res.body.id);
  }
  const board = await t.post("/api/dashboards", {
    name: "Heavy",
    items: ids.map((insightId, i) => ({ insightId, x: 0, y: i, w: 12, h: 1 })),
  });
  expect(board.status).toBe(201);
  const share = await t.post(`/api/dashboards/${board.body.id}/share`);
  expect(share.status).toBe(201);
  return share.body.token as string;
}

/** The load's stall and answers, with reads as `reads` runs them. */
async function measure(app: TestApp, t: Tenant, base: string, token: string, reads: ReadRunner) {
  const pool = app.app.deps.reads;
  app.app.deps.reads = reads;
  try {
    const load = heavyLoad(t, token, base);
    const busy = new Promise((r) => setTimeout(r, 300))
      .then(() => fetch(`${base}/metrics`))
      .then((r) => r.text());
    const [stall, answers, metrics] = await Promise.all([sampleHealth(base, load), load, busy]);
    const gauge = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, "m").exec(metrics)?.[1] ?? -1);
    return {
      stall,
      statuses: answers.map((a) => a.status),
      poolLoad: gauge("lift_read_pool_running") + gauge("lift_read_pool_queued"),
    };
  } finally {
    app.app.deps.reads = pool;
  }
}

describe("no report holds the event loop", () => {
  let app: TestApp;
  let before: Awaited<ReturnType<typeof measure>>;
  let after: Awaited<ReturnType<typeof measure>>;
  beforeAll(async () => {
    app = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
    await app.app.listen({ port: 0, host: "127.0.0.1" });
    const base = `http://127.0.0.1:${(app.app.server.address() as AddressInfo).port}`;
    const t = await app.tenant();
    await seed(t, Date.now());
    const token = await dashboardOf(t);
    const cohortId = await cohortFlag(t);
    expect(app.app.deps.reads).toBeInstanceOf(ReadPool);
    // The same reports on the request thread, as they ran before the read pool.
    before = await measure(
      app,
      t,
      base,
      token,
      new InlineReads(app.app.db, app.app.deps.state, app.app.deps.engine),
    );
    // A new version of the cohort: its membership is computed again, not taken from the minute's cache.
    expect((await t.patch(`/api/cohorts/${cohortId}`, { name: "Saw pricing (v2)" })).status).toBe(200);
    after = await measure(app, t, base, token, app.app.deps.reads);
    console.log(
      `report stall: /healthz worst ${Math.round(before.stall.worstMs)} ms on the request thread, ` +
        `${Math.round(after.stall.worstMs)} ms with the read pool (${after.stall.samples} samples)`,
    );
  }, 240_000);
  afterAll(async () => app?.close());

  // Before the analytics engine, the same load on the request thread stalled /healthz 0.6–6.2 s
  // (read row by row into JavaScript); the engine's threads now do that work wherever the report
  // runs, so the request-thread run is reported, not asserted. What must hold is that the samples
  // mean something: /healthz is sampled several times while the load runs, and the pool is seen
  // at work (below). On the engine the whole load takes about a second on this machine.
  it("the load runs while /healthz is sampled: several samples during it", () => {
    expect(after.stall.samples).toBeGreaterThan(3);
  });

  it("with the read pool, /healthz answers within 300 ms while every report runs, and every report answers", () => {
    expect(after.stall.worstMs).toBeLessThan(300);
    // /metrics shows the pool at work while the load runs
    expect(after.poolLoad).toBeGreaterThan(0);
    expect(after.statuses).toEqual(before.statuses.map(() => 200));
  });
});
