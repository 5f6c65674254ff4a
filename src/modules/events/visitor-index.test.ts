import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type Tenant, type TestApp } from "../../../test/helpers/app.js";
import { firstTouchForVisitors, listEventsForVisitors, writerFor } from "./service.js";
import { toIncoming } from "./validate.js";
import { EventWriter } from "./writer.js";

// A merge every 5 events: a few requests cross merges and bucket boundaries (8 merges a bucket).
const MERGE_ROWS = 5;
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ eventIndexMergeRows: MERGE_ROWS });
});
afterAll(async () => t.close());

const SITE = "https://shop.example.com";
const T0 = Date.parse("2026-03-01T12:00:00Z");
const min = (m: number) => T0 + m * 60_000;
const send = (a: Tenant, events: Record<string, unknown>[]) =>
  a.post(
    "/api/events",
    { projectKey: a.publicKey, events },
    { as: "none", headers: { "user-agent": "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0" } },
  );

describe("per-visitor event index (log-structured on SQLite)", () => {
  it("journeys and sessions read the same events before and after merges, across buckets", async () => {
    const a = await t.tenant();
    const project = { id: a.projectId, workspaceId: a.workspaceId };
    // 3 visitors × 40 events, one request per minute-step: a merge after every second request
    // (6 entries waiting ≥ 5), so 20 merges over buckets 1–3.
    for (let step = 0; step < 40; step++) {
      const res = await send(
        a,
        ["va", "vb", "vc"].map((v) => ({
          type: "pageview",
          visitorId: v,
          url: `${SITE}/p/${step}`,
          timestamp: new Date(min(step)).toISOString(),
        })),
      );
      expect(res.status).toBe(200);
    }
    await writerFor(t.app).idle(); // the last merge runs after the last response
    if (t.app.dbHandle.sqlite) {
      const state = t.app.dbHandle.sqlite.prepare("select merges, bucket from event_index_state").get() as {
        merges: number;
        bucket: number;
      };
      expect(state.merges).toBe(20);
      expect(state.bucket).toBe(3);
      const recent = t.app.dbHandle.sqlite
        .prepare("select count(*) as n from event_visitor_recent")
        .get() as {
        n: number;
      };
      expect(recent.n).toBe(0);
      const buckets = t.app.dbHandle.sqlite
        .prepare("select count(distinct bucket) as n from event_visitor_index where project_id = ?")
        .get(a.projectId) as { n: number };
      expect(buckets.n).toBe(3);
    }
    const stored = await t.app.db
      .selectFrom("events")
      .select(["id", "visitor_id", "ts", "session_id"])
      .where("project_id", "=", a.projectId)
      .orderBy("ts")
      .orderBy("id")
      .execute();
    expect(stored).toHaveLength(120);
    for (const v of ["va", "vb", "vc"]) {
      const journey = await listEventsForVisitors(t.app.db, project, [v], 1000);
      expect(journey.map((e) => e.id)).toEqual(stored.filter((r) => r.visitor_id === v).map((r) => r.id));
      expect(journey.map((e) => e.timestamp)).toEqual(Array.from({ length: 40 }, (_, i) => min(i)));
      // one minute apart: one session all along
      expect(new Set(journey.map((e) => e.sessionId)).size).toBe(1);
    }
    const limited = await listEventsForVisitors(t.app.db, project, ["va", "vb"], 7);
    expect(limited.map((e) => e.timestamp)).toEqual([0, 0, 1, 1, 2, 2, 3].map(min));
    const [touch] = await firstTouchForVisitors(t.app.db, project, ["vb"]);
    expect(touch).toMatchObject({ visitorId: "vb", firstSeen: min(0), lastSeen: min(39) });
    const http = await a.get("/api/identity", { query: { visitorId: "vc" } });
    expect(http.status).toBe(200);
    expect(http.body.events).toHaveLength(40);
  });

  it("entries point at the right rows when one request spans several multi-row inserts", async () => {
    const a = await t.tenant();
    const project = { id: a.projectId, workspaceId: a.workspaceId };
    // 450 events: two 200-row inserts and 50 single-row ones, visitors interleaved
    const events = Array.from({ length: 450 }, (_, i) => ({
      type: "pageview",
      visitorId: `w${i % 3}`,
      url: `${SITE}/p/${i}`,
      timestamp: new Date(min(0) + i * 1000).toISOString(),
    }));
    expect((await send(a, events)).status).toBe(200);
    for (const v of ["w0", "w1", "w2"]) {
      const journey = await listEventsForVisitors(t.app.db, project, [v], 1000);
      expect(journey).toHaveLength(150);
      expect(journey.every((e) => e.visitorId === v)).toBe(true);
      expect(journey.map((e) => e.url)).toEqual(events.filter((e) => e.visitorId === v).map((e) => e.url));
    }
  });

  it("a restarted writer (empty cache) continues a session whose last event is merged in an old bucket", async () => {
    const a = await t.tenant();
    const project = { id: a.projectId, workspaceId: a.workspaceId };
    // The visitor row is written at session start (min 0); only the index knows the event at min 10.
    await send(
      a,
      [0, 10].map((m) => ({
        type: "pageview",
        visitorId: "vr",
        url: SITE,
        timestamp: new Date(min(m)).toISOString(),
      })),
    );
    // other visitors' events push vr's entry through merges into an older bucket
    for (let i = 0; i < 12; i++)
      await send(
        a,
        Array.from({ length: 5 }, (_, j) => ({ type: "pageview", visitorId: `o${i}-${j}`, url: SITE })),
      );
    const fresh = new EventWriter(t.app.dbHandle, t.app.eventBus, t.app.log, {
      maxEvents: 5000,
      maxDelayMs: 0,
      indexMergeRows: MERGE_ROWS,
    });
    const ev = (m: number) => toIncoming({ type: "pageview", visitorId: "vr", url: SITE }, "", {}, min(m));
    await fresh.write(project, [ev(35)], false); // 25 min after the last event: same session
    await fresh.write(project, [ev(70)], false); // 35 min after: a new one
    await fresh.close();
    const journey = await listEventsForVisitors(t.app.db, project, ["vr"], 10);
    expect(journey.map((e) => e.timestamp)).toEqual([min(0), min(10), min(35), min(70)]);
    expect(journey[2]!.sessionId).toBe(journey[0]!.sessionId);
    expect(journey[3]!.sessionId).not.toBe(journey[0]!.sessionId);
  });
});
