import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type Tenant, type TestApp } from "../../../../test/helpers/app.js";
import { openMigratedSqlite } from "../../../../test/helpers/sqlite.js";
import { EventBus } from "../../../platform/event-bus.js";
import type { SnippetEventBody } from "../../events/schema.js";
import { firstTouchForVisitors, listEventsForVisitors, writerFor } from "../service.js";
import { snippetToIncoming } from "../../events/validate.js";
import { openEventWriter } from "../writer-slot.js";
import { AT, WIDTH } from "./rows.js";
import { sqliteInserter } from "./sqlite.js";
import { VisitorIndex } from "./visitor-index.js";
import { sqliteVisitorLastSeen } from "./visitor-lookups.js";
import { localVisitorStates } from "./visitor-states.js";

// A merge every 5 events: requests cross merges, each merge writes a bucket of its own.
const MERGE_ROWS = 5;
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ eventIndexMergeRows: MERGE_ROWS });
});
afterAll(async () => t.close());

const SITE = "https://shop.example.com";
const T0 = Date.parse("2026-03-01T12:00:00Z");
const min = (m: number) => T0 + m * 60_000;
/**
 * Web events of one request through the app's writer (one flush per call, as one awaited request):
 * the snippet posts one event per request, and these tests need several in one flush.
 */
const send = async (a: Tenant, events: Record<string, unknown>[]) => {
  const incoming = events.map((e) => snippetToIncoming(e as SnippetEventBody, undefined, Date.now()));
  const received = await writerFor(t.app.deps).write(
    { id: a.projectId, workspaceId: a.workspaceId },
    incoming,
    "web",
  );
  return { status: received === events.length ? 200 : 500 };
};

describe("per-visitor event index (log-structured on SQLite)", () => {
  it("journeys and sessions read the same events before and after merges, across buckets", async () => {
    const a = await t.tenant();
    const project = { id: a.projectId, workspaceId: a.workspaceId };
    // 3 visitors × 40 events, one request per minute-step: a merge after every second request
    // (6 entries waiting ≥ 5), so 20 merges, 20 buckets.
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
    await writerFor(t.app.deps).idle(); // the last merge runs after the last response
    const sqlite = t.app.dbHandle.sqlite;
    if (sqlite) {
      // one bucket per merge, published in its last step; the tail is empty after the last merge
      const state = sqlite.prepare("select bucket, merged_seq from event_index_state").get() as {
        bucket: number;
        merged_seq: number;
      };
      const maxSeq = sqlite.prepare("select max(seq) from events").pluck().get() as number;
      expect(state.merged_seq).toBe(maxSeq);
      const buckets = sqlite
        .prepare(
          "select count(distinct bucket) as n, max(bucket) as last from event_visitor_index where project_id = ?",
        )
        .get(a.projectId) as { n: number; last: number };
      expect(buckets).toEqual({ n: 20, last: state.bucket - 1 });
      const tail = sqlite
        .prepare("select count(*) from event_visitor_tail(?, ?)")
        .pluck()
        .get(a.projectId, JSON.stringify(["va", "vb", "vc"]));
      expect(tail).toBe(0);
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

  it("an erasure takes a visitor's entries out of buckets and tail; rows reusing its keys are indexed after a restart", async () => {
    const a = await t.tenant();
    const ev = (visitorId: string, m: number) => ({
      type: "pageview",
      visitorId,
      url: SITE,
      timestamp: new Date(min(m)).toISOString(),
    });
    // 6 entries make a merge (5), so all are in a bucket and the newest rows are `gone`'s: their
    // keys are given again to the next rows, which lie below the merge's mark unless it moves.
    for (let m = 0; m < 2; m++) await send(a, [ev("keep", m), ev("gone", m)]);
    await send(a, [ev("gone", 2), ev("gone", 3)]);
    await writerFor(t.app.deps).idle();
    await send(a, [ev("gone", 4)]); // in the tail
    const erased = await a.del("/api/identity", undefined, { query: { visitorId: "gone" } });
    expect(erased.body.removed).toMatchObject({ events: 5 });
    await send(
      a,
      [6, 7, 8, 9].map((m) => ev("late", m)),
    );
    await writerFor(t.app.deps).idle();
    const ids = async (v: string) =>
      (await listEventsForVisitors(t.app.db, { id: a.projectId, workspaceId: a.workspaceId }, [v], 100))
        .map((e) => e.id)
        .sort();
    const stored = async (v: string) =>
      (
        await t.app.db
          .selectFrom("events")
          .select("id")
          .where("project_id", "=", a.projectId)
          .where("visitor_id", "=", v)
          .execute()
      )
        .map((r) => r.id)
        .sort();
    expect(await ids("gone")).toEqual([]);
    expect(await stored("gone")).toEqual([]);
    expect(await ids("keep")).toEqual(await stored("keep"));
    expect(await ids("keep")).toHaveLength(2);
    expect(await ids("late")).toHaveLength(4);
    const sqlite = t.app.dbHandle.sqlite;
    if (!sqlite) return;
    expect(
      sqlite
        .prepare("select count(*) from event_visitor_index where project_id = ? and visitor_id = 'gone'")
        .pluck()
        .get(a.projectId),
    ).toBe(0);
    // A session decision after the erasure finds no event of `gone` and `keep`'s latest.
    const lastSeen = (v: string) =>
      sqlite
        .prepare(`select ${sqliteVisitorLastSeen("?", "?")}`)
        .pluck()
        .get(a.projectId, v, a.projectId, v);
    expect(lastSeen("gone")).toBe(0);
    expect(lastSeen("keep")).toBe(min(1));
    // A restart rebuilds the tail from rows after merged_seq: `late`'s rows (keys the erased rows had) are among them.
    const restarted = new VisitorIndex(sqlite, MERGE_ROWS);
    const merged = sqlite
      .prepare(
        "select seq from event_visitor_index where project_id = ? and visitor_id = 'late' and bucket in (select n from event_index_buckets)",
      )
      .pluck()
      .all(a.projectId) as number[];
    const seqs = [...restarted.entries(a.projectId, ["late"])].map(([seq]) => Number(seq)).concat(merged);
    const rows = sqlite
      .prepare("select seq from events where project_id = ? and visitor_id = 'late'")
      .pluck()
      .all(a.projectId) as number[];
    expect(seqs.sort()).toEqual(rows.sort());
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
    await writerFor(t.app.deps).idle(); // the old writer's last merge is done, as at a shutdown
    const fresh = openEventWriter(t.app.dbHandle, t.app.eventBus, t.app.log, {
      maxEvents: 5000,
      maxDelayMs: 0,
      indexMergeRows: MERGE_ROWS,
    });
    const ev = (m: number) =>
      snippetToIncoming(
        { type: "pageview", visitorId: "vr", url: SITE } as SnippetEventBody,
        undefined,
        min(m),
      );
    await fresh.write(project, [ev(35)], "web"); // 25 min after the last event: same session
    await fresh.write(project, [ev(70)], "web"); // 35 min after: a new one
    await fresh.close();
    const journey = await listEventsForVisitors(t.app.db, project, ["vr"], 10);
    expect(journey.map((e) => e.timestamp)).toEqual([min(0), min(10), min(35), min(70)]);
    expect(journey[2]!.sessionId).toBe(journey[0]!.sessionId);
    expect(journey[3]!.sessionId).not.toBe(journey[0]!.sessionId);
  });
});

describe("the index's tail and its merges (a SQLite file of its own)", () => {
  // SQLite whatever DATABASE_URL says: the tail and buckets are SQLite's (PostgreSQL has a plain index)
  let handle: Awaited<ReturnType<typeof openMigratedSqlite>>;
  beforeAll(async () => {
    handle = await openMigratedSqlite("tail");
  });
  afterAll(async () => handle.remove());

  const P = "prj_tail";
  /** Stores `n` events (visitors v0..v2 in turn) and adds them to `index` as the writer does. */
  function store(index: VisitorIndex, n: number, from = 0): void {
    const insert = sqliteInserter(handle);
    const values: unknown[] = [];
    for (let i = from; i < from + n; i++)
      values.push(
        `ev_t${i}`,
        P,
        `v${i % 3}`,
        null,
        "pageview",
        SITE,
        null,
        "{}",
        T0 + i,
        T0,
        "s",
        "direct",
        null,
        0,
        0,
      );
    handle.sqlite!.transaction(() => index.add(values, WIDTH, insert(values), AT))();
    index.commit();
  }
  /** Every key the readers find for a visitor, repeats included. */
  const keysOf = (visitor: string) =>
    handle
      .sqlite!.prepare(
        `select seq from event_visitor_tail(?, ?) union all select seq from event_visitor_index
         where project_id = ? and bucket in (select n from event_index_buckets) and visitor_id = ?`,
      )
      .pluck()
      .all(P, JSON.stringify([visitor]), P, visitor) as number[];
  const seqsOf = (visitor: string) =>
    handle
      .sqlite!.prepare("select seq from events where visitor_id = ? order by seq")
      .pluck()
      .all(visitor) as number[];
  const state = () =>
    handle.sqlite!.prepare("select bucket, merged_seq from event_index_state").get() as {
      bucket: number;
      merged_seq: number;
    };
  const step = (index: VisitorIndex) => {
    handle.sqlite!.transaction(() => index.mergeStep())();
    index.stepCommitted();
  };

  it("a merge in steps: readers see every entry exactly once before, during and after it", () => {
    const index = new VisitorIndex(handle.sqlite!, 10, 3);
    store(index, 12);
    expect(index.mergeDue).toBe(true);
    const before = state();
    let steps = 0;
    while (index.mergeDue) {
      step(index);
      steps++;
      for (const v of ["v0", "v1", "v2"]) expect(keysOf(v).sort((a, b) => a - b)).toEqual(seqsOf(v));
      // the bucket is published by the last step only
      expect(state().bucket).toBe(index.mergeDue ? before.bucket : before.bucket + 1);
    }
    expect(steps).toBe(4); // 12 entries, 3 per step
    expect(state().merged_seq).toBe(Math.max(...seqsOf("v0"), ...seqsOf("v1"), ...seqsOf("v2")));
    expect([...index.entries(P, ["v0", "v1", "v2"])]).toEqual([]);
  });

  it("a visitor's latest event time is one row's read, true before, during and after merges and a crash", () => {
    const lastSeen = handle.sqlite!.prepare(`select ${sqliteVisitorLastSeen("?", "?")}`).pluck();
    const truth = handle
      .sqlite!.prepare("select coalesce(max(ts), 0) from events where project_id = ? and visitor_id = ?")
      .pluck();
    // The writer's own lookup (visitor-states.ts) reads the tail in memory instead: the same time.
    const ofVisitor = {
      first_seen: T0,
      first_channel: "direct",
      first_source: null,
      first_landing_page: "/",
      session_id: "s",
      session_started: T0,
      session_channel: "direct",
      session_source: null,
      session_landing_page: "/",
      last_seen: T0,
    };
    let states = localVisitorStates(handle.sqlite!, { tailLastSeen: () => 0 });
    for (const v of ["v0", "v1", "v2"]) states.put(P, v, ofVisitor);
    const check = (visitors: string[]) => {
      for (const v of visitors) {
        expect(lastSeen.get(P, v, P, v)).toBe(truth.get(P, v));
        expect(states.get(P, v)?.events_last_seen ?? 0).toBe(truth.get(P, v));
      }
    };
    // However many buckets there are, the lookup reads no bucket of the index.
    const plan = handle
      .sqlite!.prepare(`explain query plan select ${sqliteVisitorLastSeen("?", "?")}`)
      .all(P, "v0", P, "v0") as { detail: string }[];
    expect(plan.map((r) => r.detail).join("\n")).not.toMatch(/bucket|MATERIALIZE/);
    const index = new VisitorIndex(handle.sqlite!, 10, 4);
    states = localVisitorStates(handle.sqlite!, index);
    store(index, 12, 300);
    check(["v0", "v1", "v2"]);
    step(index);
    check(["v0", "v1", "v2"]);
    while (index.mergeDue) step(index);
    check(["v0", "v1", "v2"]);
    // Older events arriving later do not lower it; a crash after a step leaves it true.
    store(index, 12, 200);
    step(index);
    const restarted = new VisitorIndex(handle.sqlite!, 10, 4);
    states = localVisitorStates(handle.sqlite!, restarted);
    check(["v0", "v1", "v2"]);
    store(restarted, 3, 400);
    while (restarted.mergeDue) step(restarted);
    check(["v0", "v1", "v2", "nobody"]);
  });

  it("a merge cut short (crash) starts over on the next start; nothing is indexed twice", () => {
    const index = new VisitorIndex(handle.sqlite!, 10, 3);
    store(index, 12, 100);
    step(index);
    step(index);
    const { bucket } = state();
    const partial = () =>
      handle.sqlite!.prepare("select count(*) from event_visitor_index where bucket = ?").pluck().get(bucket);
    expect(partial()).toBe(6);
    const restarted = new VisitorIndex(handle.sqlite!, 10, 3);
    expect(partial()).toBe(0);
    expect([...restarted.entries(P, ["v0", "v1", "v2"])]).toHaveLength(12);
    while (restarted.mergeDue) step(restarted);
    expect(partial()).toBe(12);
    expect(state()).toMatchObject({ bucket: bucket + 1 });
  });

  it("a rolled-back flush leaves no entry behind (its keys are reused by the next rows)", () => {
    const index = new VisitorIndex(handle.sqlite!, 1000);
    const insert = sqliteInserter(handle);
    const row = (id: string, visitor: string) => [
      id,
      P,
      visitor,
      null,
      "pageview",
      SITE,
      null,
      "{}",
      T0,
      T0,
      "s",
      "direct",
      null,
      0,
      0,
    ];
    const failed = row("ev_x", "vx");
    expect(() =>
      handle.sqlite!.transaction(() => {
        index.add(failed, WIDTH, insert(failed), AT);
        throw new Error("a processor failed");
      })(),
    ).toThrow("a processor failed");
    index.rollback();
    const next = row("ev_y", "vy");
    handle.sqlite!.transaction(() => index.add(next, WIDTH, insert(next), AT))();
    index.commit();
    expect([...index.entries(P, ["vx"])]).toEqual([]);
    expect(keysOf("vx")).toEqual([]);
    expect(keysOf("vy")).toEqual(seqsOf("vy"));
  });

  it("the writer carries a merge through all its steps when no request comes", async () => {
    const writer = openEventWriter(handle, new EventBus(), t.app.log, {
      maxEvents: 5000,
      maxDelayMs: 0,
      indexMergeRows: 10,
      indexMergeStep: 3,
    });
    const { bucket, merged_seq } = state();
    // events stored by the tests above and not merged yet: the writer's tail starts with them
    const waiting = handle
      .sqlite!.prepare("select count(*) from events where seq > ?")
      .pluck()
      .get(merged_seq);
    const project = { id: P, workspaceId: "wsp_tail" };
    const ev = (i: number) =>
      snippetToIncoming(
        { type: "pageview", visitorId: `w${i % 4}`, url: SITE } as SnippetEventBody,
        undefined,
        min(i),
      );
    await writer.write(
      project,
      Array.from({ length: 12 }, (_, i) => ev(i)),
      "web",
    );
    await writer.idle();
    // 12 entries (and those waiting) in steps of 3, after a single flush: published, tail empty
    expect(waiting).toBeGreaterThan(0);
    expect(state().bucket).toBe(bucket + 1);
    const inBucket = handle
      .sqlite!.prepare("select count(*) from event_visitor_index where bucket = ?")
      .pluck();
    expect(inBucket.get(bucket)).toBe((waiting as number) + 12);
    for (const v of ["w0", "w1", "w2", "w3"]) expect(keysOf(v).sort((a, b) => a - b)).toEqual(seqsOf(v));
    await writer.close();
  });

  it("rows and merged entries of two projects sharing 200-row chunks land under the right project", async () => {
    const writer = openEventWriter(handle, new EventBus(), t.app.log, {
      maxEvents: 5000,
      maxDelayMs: 0,
      indexMergeRows: 300,
    });
    const [pa, pb] = [
      { id: "prj_mix_a", workspaceId: "w" },
      { id: "prj_mix_b", workspaceId: "w" },
    ];
    const events = (prefix: string) =>
      Array.from({ length: 150 }, (_, i) =>
        snippetToIncoming(
          { type: "pageview", visitorId: `${prefix}${i % 3}`, url: SITE } as SnippetEventBody,
          undefined,
          min(i),
        ),
      );
    const { bucket } = state();
    // queued together: one flush of 300 rows, the first 200-row insert holding both projects
    await Promise.all([writer.write(pa, events("a"), "web"), writer.write(pb, events("b"), "web")]);
    await writer.idle();
    expect(state().bucket).toBe(bucket + 1); // merged: sorted chunks mix the projects too
    const sqlite = handle.sqlite!;
    for (const [project, prefix] of [
      [pa.id, "a"],
      [pb.id, "b"],
    ] as const) {
      const rows = sqlite.prepare("select count(*) from events where project_id = ?").pluck().get(project);
      expect(rows).toBe(150);
      const indexed = sqlite
        .prepare("select count(*) from event_visitor_index where project_id = ? and bucket = ?")
        .pluck()
        .get(project, bucket);
      expect(indexed).toBe(150);
      for (let v = 0; v < 3; v++) {
        const visitor = `${prefix}${v}`;
        const keys = sqlite
          .prepare("select seq from event_visitor_index where project_id = ? and visitor_id = ? order by seq")
          .pluck()
          .all(project, visitor);
        const stored = sqlite
          .prepare("select seq from events where project_id = ? and visitor_id = ? order by seq")
          .pluck()
          .all(project, visitor);
        expect(keys).toEqual(stored);
        expect(stored).toHaveLength(50);
      }
    }
    await writer.close();
  });
});
