import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type Tenant, type TestApp } from "../../../test/helpers/app.js";
import { type CommittedEvent, EventBus } from "../../platform/event-bus.js";
import { firstTouchForVisitors, listEventsForVisitors, writerFor } from "../event-store/service.js";
import { openEventWriter } from "../event-store/writer-slot.js";
import { ingestServerEvents } from "./service.js";
import type { SnippetEventBody } from "./schema.js";
import { snippetToIncoming } from "./validate.js";
import { PIPELINE_STEPS } from "./pipeline.js";

let t: TestApp;
const seen: CommittedEvent[][] = [];
beforeAll(async () => {
  t = await startTestApp();
  // A probe step after the real ones: it sees what they committed with.
  t.app.eventBus.setPipeline([...PIPELINE_STEPS, "test-probe"]);
  t.app.eventBus.register("test-probe", async (trx, events) => {
    seen.push(events);
    if (events.some((e) => e.type === "boom")) {
      // Proves processors run inside the commit transaction: the event row is visible here...
      const row = await trx
        .selectFrom("events")
        .select("id")
        .where("id", "=", events[0]!.id)
        .executeTakeFirst();
      if (!row) throw new Error("processor ran outside the transaction");
      throw new Error("processor failure");
    }
  });
});
afterAll(async () => t.close());

const BROWSER =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36";
const SITE = "https://shop.example.com";
const T0 = Date.parse("2026-03-01T12:00:00Z");
const at = (min: number) => new Date(T0 + min * 60_000).toISOString();
const send = (a: Tenant, body: Record<string, unknown>) =>
  a.post(
    "/api/events",
    { projectKey: a.publicKey, ...body },
    { as: "none", headers: { "user-agent": BROWSER } },
  );
const rowsOf = (a: Tenant) =>
  t.app.db
    .selectFrom("events")
    .selectAll()
    .where("project_id", "=", a.projectId)
    .orderBy("ts")
    .orderBy("id")
    .execute();

describe("group commit", () => {
  it("concurrent requests share transactions and every event reaches the processors once", async () => {
    const a = await t.tenant();
    const before = seen.length;
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        send(a, { type: "pageview", visitorId: `v${i}`, url: `${SITE}/p${i}` }),
      ),
    );
    expect(results.every((r) => r.status === 200 && r.body.received === 1)).toBe(true);
    const batches = seen.slice(before).map((b) => b.filter((e) => e.projectId === a.projectId));
    const delivered = batches.flat();
    expect(delivered).toHaveLength(40);
    expect(new Set(delivered.map((e) => e.visitorId)).size).toBe(40);
    expect(batches.filter((b) => b.length > 0).length).toBeLessThan(40);
    expect(delivered[0]).toMatchObject({
      workspaceId: a.workspaceId,
      type: "pageview",
      channel: "direct",
      isBot: false,
    });
    expect((await rowsOf(a)).length).toBe(40);
  });

  it("a processor failure rolls the request back (not acknowledged, not stored) without failing others", async () => {
    const a = await t.tenant();
    const [bad, good] = await Promise.all([
      send(a, { type: "boom", visitorId: "vb", url: SITE }),
      send(a, { type: "pageview", visitorId: "vg", url: SITE }),
    ]);
    expect(bad.status).toBe(500);
    expect(good.status).toBe(200);
    expect((await rowsOf(a)).map((r) => r.visitor_id)).toEqual(["vg"]);
  });
});

describe("group commit limits", () => {
  it("a flush takes whole requests up to maxEvents; a larger request still goes alone", async () => {
    const a = await t.tenant();
    const project = { id: a.projectId, workspaceId: a.workspaceId };
    const bus = new EventBus();
    bus.setPipeline(["sizes"]);
    const sizes: number[] = [];
    bus.register("sizes", async (_trx, events) => {
      sizes.push(events.length);
    });
    const writer = openEventWriter(t.app.dbHandle, bus, t.app.log, {
      maxEvents: 3,
      maxDelayMs: 0,
      indexMergeRows: 32_768,
    });
    const ev = (v: string) =>
      snippetToIncoming({ type: "x", visitorId: v, url: SITE } as SnippetEventBody, undefined, Date.now());
    const counts = await Promise.all([
      writer.write(project, [ev("a"), ev("b")], "web"),
      writer.write(project, [ev("c")], "web"),
      writer.write(project, [ev("d"), ev("e")], "web"),
      writer.write(project, [ev("f"), ev("g"), ev("h"), ev("i")], "web"),
    ]);
    await writer.close();
    expect(counts).toEqual([2, 1, 2, 4]);
    expect(sizes).toEqual([3, 2, 4]);
    expect((await rowsOf(a)).length).toBe(9);
  });

  it("lets the store maintain the database between flushes (SQLite: its WAL), never inside one", async () => {
    const a = await t.tenant();
    const project = { id: a.projectId, workspaceId: a.workspaceId };
    let open = 0;
    const bus = new EventBus();
    bus.setPipeline(["in-flush"]);
    bus.register("in-flush", async () => {
      open++;
    });
    const wal: number[] = [];
    // the handle as openDatabase gives it, with the WAL hook observed
    const handle = { ...t.app.dbHandle, maintainWal: async () => void wal.push(open) };
    const writer = openEventWriter(handle, bus, t.app.log, {
      maxEvents: 1,
      maxDelayMs: 0,
      indexMergeRows: 32_768,
    });
    const calls: number[] = [];
    const maintain = writer.store.maintain.bind(writer.store);
    writer.store.maintain = async () => {
      calls.push(open);
      await maintain();
    };
    const ev = (v: string) =>
      snippetToIncoming({ type: "x", visitorId: v, url: SITE } as SnippetEventBody, undefined, Date.now());
    await Promise.all([writer.write(project, [ev("a")], "web"), writer.write(project, [ev("b")], "web")]);
    await writer.idle();
    expect(calls).toEqual([1, 2]); // once after each of the two flushes
    // SQLite's store truncates the WAL there; PostgreSQL has nothing to do
    expect(wal).toEqual(t.app.dbHandle.sqlite ? [1, 2] : []);
  });
});

describe("sessions", () => {
  it("rolls over after 30 minutes of inactivity and derives the new session's channel", async () => {
    const a = await t.tenant();
    const ev = (min: number, extra: Record<string, unknown> = {}) => ({
      type: "pageview",
      url: `${SITE}/`,
      timestamp: at(min),
      ...extra,
    });
    for (const e of [ev(0, { url: `${SITE}/?utm_source=newsletter&utm_medium=email` }), ev(10), ev(39)])
      await send(a, { ...e, visitorId: "v1" });
    await send(a, { ...ev(70, { referrer: "https://www.google.com/" }), visitorId: "v1" }); // 31 min after the last
    await send(a, { ...ev(101, { referrer: `${SITE}/docs` }), visitorId: "v1" }); // self-referral after 31 min
    const rows = await rowsOf(a);
    const s = rows.map((r) => r.session_id);
    expect(s[0]).toBe(s[1]);
    expect(s[1]).toBe(s[2]);
    expect(s[3]).not.toBe(s[2]);
    expect(s[4]).not.toBe(s[3]);
    expect(rows.map((r) => r.channel)).toEqual([
      "email",
      "email",
      "email",
      "organic_search",
      "organic_search",
    ]);
    expect(rows[4]!.source).toBe("google");
    const [touch] = await firstTouchForVisitors(t.app.db, { id: a.projectId, workspaceId: a.workspaceId }, [
      "v1",
    ]);
    expect(touch).toMatchObject({
      channel: "email",
      source: "newsletter",
      landingPage: `${SITE}/`,
      firstSeen: T0,
      lastSeen: T0 + 101 * 60_000,
    });
  });

  it("assigns sessions in time order even when a write lists web events out of order", async () => {
    const a = await t.tenant();
    const ev = (min: number) =>
      snippetToIncoming(
        { type: "pageview", visitorId: "v1", url: `${SITE}/`, timestamp: at(min) } as SnippetEventBody,
        undefined,
        Date.now(),
      );
    const project = { id: a.projectId, workspaceId: a.workspaceId };
    expect(await writerFor(t.app.deps).write(project, [ev(40), ev(0), ev(10)], "web")).toBe(3);
    const rows = await rowsOf(a);
    expect(rows.map((r) => Number(r.ts))).toEqual([T0, T0 + 10 * 60_000, T0 + 40 * 60_000]);
    expect(new Set(rows.map((r) => r.session_id)).size).toBe(1);
    expect(rows[0]!.session_id).toMatch(/^ses_/);
  });

  it("batch events are server events: no session, channel unattributed, no visitor state", async () => {
    const a = await t.tenant();
    const ev = (min: number) => ({
      type: "pageview",
      url: `${SITE}/?utm_source=news&utm_medium=email`,
      timestamp: at(min),
    });
    const res = await send(a, { visitorId: "v1", events: [ev(40), ev(0)] });
    expect(res.body).toEqual({ received: 2, errors: [] });
    const rows = await rowsOf(a);
    expect(rows.map((r) => [r.session_id, r.channel, r.source, Number(r.is_server)])).toEqual([
      ["", "unattributed", null, 1],
      ["", "unattributed", null, 1],
    ]);
    const project = { id: a.projectId, workspaceId: a.workspaceId };
    expect(await firstTouchForVisitors(t.app.db, project, ["v1"])).toEqual([]);
    expect((await listEventsForVisitors(t.app.db, project, ["v1"], 10)).map((e) => e.origin)).toEqual([
      "server",
      "server",
    ]);
  });

  it("keeps visitors of different projects apart", async () => {
    const a = await t.tenant();
    const b = await t.tenant();
    await send(a, { type: "pageview", visitorId: "same", url: SITE });
    await send(b, { type: "pageview", visitorId: "same", url: SITE });
    expect((await rowsOf(a))[0]!.session_id).not.toBe((await rowsOf(b))[0]!.session_id);
  });
});

describe("service functions for other modules", () => {
  it("ingestServerEvents: leadId-only events get visitor lead:<id>; listEventsForVisitors orders by time", async () => {
    const a = await t.tenant();
    const project = { id: a.projectId, workspaceId: a.workspaceId };
    const n = await ingestServerEvents(t.app.deps, project, [
      {
        type: "$revenue",
        leadId: "lead_1",
        data: { revenue: 49, currency: "USD", source: "payments", externalId: "in_1" },
        timestamp: T0 + 5000,
      },
      { type: "signup", visitorId: "v1", url: `${SITE}/signup`, timestamp: T0 },
    ]);
    expect(n).toBe(2);
    const events = await listEventsForVisitors(t.app.db, project, ["lead:lead_1", "v1"], 10);
    expect(events.map((e) => [e.type, e.visitorId, e.leadId, e.timestamp])).toEqual([
      ["signup", "v1", null, T0],
      ["$revenue", "lead:lead_1", "lead_1", T0 + 5000],
    ]);
    expect(events[1]!.data).toEqual({ revenue: 49, currency: "USD", source: "payments", externalId: "in_1" });
    expect(await listEventsForVisitors(t.app.db, project, ["v1", "lead:lead_1"], 1)).toHaveLength(1);
    expect(seen.flat().some((e) => e.type === "$revenue" && e.leadId === "lead_1")).toBe(true);
  });

  it("ingestServerEvents refuses an event with neither visitorId nor leadId, naming the field", async () => {
    const a = await t.tenant();
    await expect(
      ingestServerEvents(t.app.deps, { id: a.projectId, workspaceId: a.workspaceId }, [{ type: "x" }]),
    ).rejects.toMatchObject({ code: "VALIDATION_ERROR", message: "events[0].visitorId is required" });
  });
});
