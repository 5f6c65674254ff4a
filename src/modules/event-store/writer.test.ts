import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../../test/helpers/app.js";
import { EventBus } from "../../platform/event-bus.js";
import type { SnippetEventBody } from "../events/schema.js";
import type { CommittedBatch, StoreKey } from "./store/types.js";
import { committedEventsAfter } from "./store/feed.js";
import { snippetToIncoming } from "../events/validate.js";
import { openEventWriter } from "./writer-slot.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const SITE = "https://shop.example.com";
const ev = (type: string, visitorId: string) =>
  snippetToIncoming({ type, visitorId, url: SITE } as SnippetEventBody, undefined, Date.now());
const byKey = (a: StoreKey, b: StoreKey) => (a < b ? -1 : a > b ? 1 : 0);

/** A writer of its own whose processor fails any transaction holding a `boom` event. */
function writerWithListener() {
  const bus = new EventBus();
  bus.setPipeline(["probe"]);
  bus.register("probe", async (_trx, events) => {
    if (events.some((e) => e.type === "boom")) throw new Error("a processor failed");
  });
  const writer = openEventWriter(t.app.dbHandle, bus, t.app.log, { maxEvents: 5000, maxDelayMs: 0 });
  const batches: CommittedBatch[] = [];
  writer.onCommitted((batch) => batches.push(batch));
  return { writer, batches };
}

describe("committed batches, for a second store of analytics reads", () => {
  it("a listener gets every committed event once, with its store key, never a rolled-back or duplicate one", async () => {
    const a = await t.tenant();
    const project = { id: a.projectId, workspaceId: a.workspaceId };
    const { writer, batches } = writerWithListener();
    // One flush of three requests fails on `boom`; each request is then retried alone.
    const answers = await Promise.allSettled([
      writer.write(project, [ev("pageview", "v1"), ev("click", "v1")], "web"),
      writer.write(project, [ev("boom", "v2")], "web"),
      writer.write(project, [ev("pageview", "v3")], "web"),
    ]);
    expect(answers.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    // A message key stores its event once: the repeat is left out, and so from the listener.
    const keyed = [ev("signup", "v4")];
    await writer.write(project, keyed, "server", { messageIds: ["m-1"] });
    await writer.write(project, keyed, "server", { messageIds: ["m-1"] });
    await writer.close();

    const events = batches.flatMap((b) => b.events);
    const keys = batches.flatMap((b) => b.keys);
    expect(batches.every((b) => b.keys.length === b.events.length)).toBe(true);
    expect(events.map((e) => e.type).sort()).toEqual(["click", "pageview", "pageview", "signup"]);
    const stored = await t.app.db
      .selectFrom("events")
      .select("id")
      .where("project_id", "=", a.projectId)
      .execute();
    expect(events.map((e) => e.id).sort()).toEqual(stored.map((r) => r.id).sort());
    expect(new Set(keys).size).toBe(keys.length);
    // Each key is the stored row's: SQLite's `seq` (rising in commit order), PostgreSQL's `id`.
    const { rows } = await committedEventsAfter(writer.store.db, {}, 100_000);
    const keyOf = (r: (typeof rows)[number]) =>
      t.app.dbHandle.sqlite ? Number((r as { seq?: number }).seq) : r.id;
    const idOfKey = new Map(rows.map((r) => [keyOf(r), r.id]));
    expect(keys.map((k) => idOfKey.get(k))).toEqual(events.map((e) => e.id));
    if (t.app.dbHandle.sqlite) expect([...keys].sort(byKey)).toEqual(keys);
  });

  it("the feed gives committed events after a cursor, in commit order, a page at a time", async () => {
    const a = await t.tenant();
    const project = { id: a.projectId, workspaceId: a.workspaceId };
    const { writer } = writerWithListener();
    await writer.write(project, [ev("pageview", "w1"), ev("pageview", "w2")], "web");
    const { next: cursor } = await committedEventsAfter(writer.store.db, {}, 100_000);
    // PostgreSQL's cursor is (receipt time, id): later rows come from a later millisecond.
    const from = Date.now();
    while (Date.now() === from) await new Promise((r) => setImmediate(r));
    await writer.write(project, [ev("click", "w1"), ev("click", "w3"), ev("click", "w4")], "web");
    await writer.close();

    const after = await committedEventsAfter(writer.store.db, cursor, 100_000);
    expect(after.rows.map((r) => r.type)).toEqual(["click", "click", "click"]);
    expect(after.rows.every((r) => r.project_id === a.projectId)).toBe(true);
    // Pages: a limit, then the next page after its last row.
    const first = await committedEventsAfter(writer.store.db, cursor, 2);
    const rest = await committedEventsAfter(writer.store.db, first.next, 2);
    expect(first.rows).toHaveLength(2);
    expect([...first.rows, ...rest.rows].map((r) => r.id)).toEqual(after.rows.map((r) => r.id));
  });
});
