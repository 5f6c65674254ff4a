import type { FastifyInstance } from "fastify";
import { basic, storeMessageIds } from "../../src/modules/events/segment/segment.testing.js";
import { BROWSER_UA, type TestApp, type TestResponse, startTestApp } from "../helpers/app.js";

const DAY = 86_400_000;
const HOUR = 3_600_000;

/** What the seeded SQLite database holds, for reading it back through the API later. */
export interface Seeded {
  dataDir: string;
  file: string;
  secretKey: string;
  apiKey: string;
  publicKey: string;
  visitors: string[];
  leadIds: string[];
  experimentId: string;
  /** Segment messages sent before the move: their ids must still be duplicates after it */
  segmentMessages: Record<string, unknown>[];
  /** a messageId logged longer ago than Segment's 24 hours: a message with it is new again */
  expiredMessageId: string;
  /** a messageId a page sent (the public key's namespace): it must not suppress a server's after the move */
  pageMessageId: string;
  /** what the SQLite app answered before it stopped (apiAnswers) */
  answers: Record<string, unknown>;
}

/**
 * A SQLite database filled through the real app (HTTP routes, processors, the events writer):
 * web events of several visitors over several sessions and channels, server events converting
 * with revenue, leads by stitch and by id, goals, a belief, a running experiment with exposures
 * and conversions, and a webhook endpoint with deliveries queued. The app is closed before it
 * returns, as the server would be stopped before a copy; the file stays.
 */
export async function seedSqlite(): Promise<Seeded> {
  const t = await startTestApp({
    databaseUrl: undefined,
    databaseSchema: undefined,
    allowPrivateWebhookTargets: true,
    rateLimits: { events: 0, reads: 0, writes: 0 },
  });
  try {
    const seeded = await fill(t);
    seeded.answers = await apiAnswers(t.app, seeded);
    // Not t.close(): that removes the data directory with the file in it.
    await t.app.close();
    return seeded;
  } catch (err) {
    await t.close();
    throw err;
  }
}

async function fill(t: TestApp): Promise<Seeded> {
  const a = await t.tenant();
  const ok = async (res: Promise<TestResponse>) => {
    const r = await res;
    if (r.status >= 300) throw new Error(`seeding: ${r.status} ${r.text}`);
    return r;
  };
  await ok(a.post("/api/webhooks", { url: "https://93.184.215.14/hooks/lift", events: ["lead.created"] }));
  const purchase = (await ok(a.post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" })))
    .body;
  await ok(a.post("/api/conversion-goals", { name: "Signup", eventType: "signup" }));
  const soon = new Date(Date.now() + 30 * DAY).toISOString().slice(0, 10);
  await ok(a.post("/api/goals", { metric: "visitors", target: 50, deadline: soon }));
  await ok(a.post("/api/goals", { metric: "Purchase", target: 5, deadline: soon }));
  const belief = (await ok(a.post("/api/beliefs", { statement: "A bold headline sells", tags: ["pricing"] })))
    .body;
  const experiment = (
    await ok(
      a.post("/api/experiments", {
        name: "Pricing headline",
        targetUrl: "/pricing*",
        variants: [{ name: "control" }, { name: "bold" }],
        beliefId: belief.id,
        conversionGoalIds: [purchase.id],
      }),
    )
  ).body;
  await ok(a.patch("/api/experiments", { id: experiment.id, status: "running" }));

  const web = (body: Record<string, unknown>) =>
    ok(
      a.post(
        "/api/events",
        { projectKey: a.publicKey, ...body },
        { as: "none", headers: { "user-agent": BROWSER_UA } },
      ),
    );
  const now = Date.now();
  const visitors = Array.from({ length: 16 }, (_, i) => `visitor-${i}`);
  const entries = [
    { referrer: "https://www.google.com/", query: "" },
    { referrer: null, query: "?utm_source=newsletter&utm_medium=email&utm_campaign=spring" },
    { referrer: "https://news.example.org/a", query: "" },
  ];
  for (const [i, visitorId] of visitors.entries()) {
    // three sessions per visitor, hours apart, over the last days; five pages each
    for (let s = 0; s < 3; s++) {
      const start = now - ((i % 5) + 1) * DAY + s * 3 * HOUR;
      const entry = entries[(i + s) % entries.length]!;
      for (let p = 0; p < 5; p++) {
        const path = p === 1 ? "/pricing" : `/p/${(i + p) % 7}`;
        await web({
          type: "pageview",
          visitorId,
          url: `https://shop.example.com${path}${p === 0 ? entry.query : ""}`,
          referrer: p === 0 ? entry.referrer : undefined,
          // quotes, backslashes and non-ASCII: what the copy's array literals and checksums must keep
          data: { title: `Pägé ${p} "quoted" \\ ✓`, n: i * 10 + p, ratio: (i + 1) / 3 },
          timestamp: new Date(start + p * 60_000).toISOString(),
        });
      }
    }
    const at = new Date(now - ((i % 5) + 1) * DAY + 10 * 60_000).toISOString();
    await web({
      type: "$exposure",
      visitorId,
      url: "https://shop.example.com/pricing",
      data: { experimentId: experiment.id, variant: i % 2 ? "bold" : "control" },
      timestamp: at,
    });
    if (i % 3 === 0) {
      await web({ type: "signup", visitorId, url: "https://shop.example.com/signup", timestamp: at });
    }
  }
  const leadIds: string[] = [];
  for (const [i, visitorId] of visitors.slice(0, 6).entries()) {
    const s = (
      await ok(
        a.post(
          "/api/identity/stitch",
          { projectKey: a.apiKey, visitorId, email: `buyer${i}@example.com` },
          { as: "none" },
        ),
      )
    ).body;
    leadIds.push(s.leadId);
  }
  await ok(
    a.post("/api/identity", {
      visitorId: visitors[7],
      leadId: "user_7",
      traits: { plan: "pro", seats: 5, trial: true },
    }),
  );
  leadIds.push("user_7");
  // server events (batch format): purchases with revenue, one by a lead's id alone
  await ok(
    a.post("/api/events", {
      projectKey: a.apiKey,
      events: [0, 1, 4, 7].map((i) => ({
        type: "purchase",
        visitorId: visitors[i],
        url: "https://shop.example.com/thanks",
        data: { revenue: 19.99 + i },
        timestamp: new Date(now - ((i % 5) + 1) * DAY + 20 * 60_000).toISOString(),
      })),
    }),
  );
  await ok(
    a.post("/api/events", {
      projectKey: a.apiKey,
      userId: "user_7",
      events: [{ type: "purchase", url: "https://shop.example.com/api/checkout", data: { revenue: 5 } }],
    }),
  );

  // Segment's calls (issue 33): messageIds in SQLite's log, one of them past the 24-hour window.
  const segmentMessages = ["seg-1", "seg-2", "seg-3"].map((messageId, i) => ({
    type: "track",
    messageId,
    anonymousId: visitors[i],
    event: "Order Completed",
    properties: { revenue: 10 + i, currency: "EUR" },
  }));
  await ok(
    a.post(
      "/v1/batch",
      { batch: segmentMessages },
      { as: "none", headers: { authorization: basic(a.apiKey) } },
    ),
  );
  const expiredMessageId = "seg-old";
  await storeMessageIds(t.app.db, a.projectId, [[expiredMessageId, 25 * HOUR]]);
  const pageMessageId = "seg-page";
  await ok(
    a.post(
      "/v1/track",
      { messageId: pageMessageId, anonymousId: visitors[0], event: "Page Claimed" },
      { as: "none", headers: { authorization: basic(a.publicKey) } },
    ),
  );

  return {
    segmentMessages,
    expiredMessageId,
    pageMessageId,
    dataDir: t.config.dataDir,
    file: t.config.sqlitePath,
    secretKey: t.config.secretKey,
    apiKey: a.apiKey,
    publicKey: a.publicKey,
    visitors,
    leadIds,
    experimentId: experiment.id,
    answers: {},
  };
}

/** The API's answers that read what was copied: analytics, leads, journeys, experiments, settings. */
export async function apiAnswers(app: FastifyInstance, s: Seeded): Promise<Record<string, unknown>> {
  const headers = { "x-api-key": s.apiKey, "content-type": "application/json" };
  const gets = [
    "/api/analytics/summary?period=30d",
    "/api/analytics/timeseries?period=30d",
    "/api/analytics/breakdown?by=channel&period=30d",
    "/api/analytics/breakdown?by=source&period=30d",
    "/api/analytics/retention?period=30d&interval=day",
    "/api/attribution/summary?period=30d",
    "/api/attribution/summary?period=30d&model=linear",
    "/api/leads",
    ...s.leadIds.map((id) => `/api/leads/${id}`),
    ...s.visitors.slice(0, 8).map((v) => `/api/identity?visitorId=${v}`),
    `/api/experiments/${s.experimentId}`,
    "/api/experiments",
    "/api/goals",
    "/api/conversion-goals",
    "/api/beliefs",
    "/api/webhooks",
    "/api/events/recent?limit=100",
  ];
  const out: Record<string, unknown> = {};
  for (const url of gets) {
    const res = await app.inject({ method: "GET", url, headers });
    out[url] = { status: res.statusCode, body: JSON.parse(res.body) };
  }
  // Recent events come newest first in storage order: `seq` on SQLite, the id on PostgreSQL. Ids
  // made in one millisecond may sort apart from arrival (their per-millisecond counter is shared
  // with session ids, event-store/ids.ts), so ties are compared as a set, by id.
  const recent = out["/api/events/recent?limit=100"] as { body: { id: string }[] };
  recent.body.sort((x, y) => (x.id < y.id ? -1 : 1));
  const funnel = await app.inject({
    method: "POST",
    url: "/api/analytics/funnel",
    headers,
    payload: JSON.stringify({
      period: "30d",
      steps: [
        { eventType: "pageview", urlPattern: "*/pricing*" },
        { eventType: "signup" },
        { eventType: "purchase" },
      ],
    }),
  });
  out.funnel = { status: funnel.statusCode, body: JSON.parse(funnel.body) };
  return out;
}
