import type { FastifyInstance } from "fastify";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { buildApp } from "../../src/app.js";
import { isPostgres } from "../../src/config.js";
import { type Tenant, type TestApp, startTestApp } from "../helpers/app.js";
import { PIPELINE_STEPS } from "../../src/modules/events/pipeline.js";
import { bumpConfigVersion, readConfigVersions } from "../../src/platform/config-version.js";

/**
 * Configuration that decides what the events pipeline stores (conversion goals, experiments) is
 * seen by every event committed after the change committed, on the process that made the change
 * and on any other process over the same database: no cached copy may decide what is stored.
 */
let t: TestApp;
/** A second app instance on the same database (its own connection or pool): another API process. */
let other: FastifyInstance;
/** Holds an events transaction open after the processors ran (the lock-ordering test). */
let hold: { reached: () => void; release: Promise<void> } | null = null;

beforeAll(async () => {
  t = await startTestApp();
  other = await buildApp(t.config, { logger: false });
  // Runs after every module's processor, inside the same events transaction.
  other.eventBus.setPipeline([...PIPELINE_STEPS, "test-hold"]);
  other.eventBus.register("test-hold", async (_trx, events) => {
    if (hold && events.some((e) => e.data.hold === true)) {
      hold.reached();
      await hold.release;
    }
  });
  await other.ready();
});
afterAll(async () => {
  await other.close();
  await t.close();
});

const BROWSER =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36";
const URL = "https://shop.example/checkout";

/** POST /api/events to one app, as a browser would; resolves once the event is committed. */
async function send(app: FastifyInstance, a: Tenant, event: Record<string, unknown>) {
  const res = await app.inject({
    method: "POST",
    url: "/api/events",
    headers: { "content-type": "application/json", "user-agent": BROWSER },
    payload: JSON.stringify({ projectKey: a.publicKey, url: URL, ...event }),
  });
  expect(res.statusCode, res.body).toBe(200);
}

const conversions = async (a: Tenant) => {
  const res = await a.get("/api/analytics/summary?period=7d");
  expect(res.status).toBe(200);
  return res.body.conversions as number;
};

async function startExperiment(a: Tenant, variants = ["control", "b"]) {
  const e = await a.post("/api/experiments", {
    name: "Freshness",
    targetUrl: "/checkout",
    variants: variants.map((name) => ({ name })),
  });
  expect(e.status).toBe(201);
  expect((await a.patch("/api/experiments", { id: e.body.id, status: "running" })).status).toBe(200);
  return e.body.id as string;
}

const variantCounts = async (a: Tenant, id: string) =>
  (await a.get(`/api/experiments/${id}`)).body.results.variants.map(
    (v: { name: string; exposures: number; conversions: number }) => [v.name, v.exposures, v.conversions],
  );

describe("conversion goals", () => {
  it("a goal created on one process counts the very next matching event on another", async () => {
    const a = await t.tenant();
    // Both processes have looked at the project's (empty) goal list.
    await send(t.app, a, { type: "purchase", visitorId: "v0" });
    await send(other, a, { type: "purchase", visitorId: "v0" });
    expect((await a.post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" })).status).toBe(
      201,
    );
    await send(other, a, { type: "purchase", visitorId: "v1" });
    expect(await conversions(a)).toBe(1);
  });

  it("a goal created on this process counts the very next matching event here", async () => {
    const a = await t.tenant();
    await send(t.app, a, { type: "purchase", visitorId: "v0" });
    await a.post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" });
    await send(t.app, a, { type: "purchase", visitorId: "v1" });
    expect(await conversions(a)).toBe(1);
  });

  it("a deleted goal stops counting at once on every process", async () => {
    const a = await t.tenant();
    const goal = (await a.post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" })).body;
    await send(t.app, a, { type: "purchase", visitorId: "v1" });
    await send(other, a, { type: "purchase", visitorId: "v2" });
    expect(await conversions(a)).toBe(2);
    expect((await a.del(`/api/conversion-goals?id=${goal.id}`)).status).toBe(200);
    await send(other, a, { type: "purchase", visitorId: "v3" });
    await send(t.app, a, { type: "purchase", visitorId: "v4" });
    expect(await conversions(a)).toBe(2);
  });
});

describe("experiments", () => {
  it("a goal and an experiment started on one process count the next exposure and conversion on another", async () => {
    const a = await t.tenant();
    await send(other, a, { type: "signup", visitorId: "v0" });
    await send(t.app, a, { type: "signup", visitorId: "v0" });
    await a.post("/api/conversion-goals", { name: "Signup", eventType: "signup" });
    const id = await startExperiment(a);
    await send(other, a, { type: "$exposure", visitorId: "v1", data: { experimentId: id, variant: "b" } });
    await send(other, a, { type: "signup", visitorId: "v1" });
    await send(t.app, a, {
      type: "$exposure",
      visitorId: "v2",
      data: { experimentId: id, variant: "control" },
    });
    await send(t.app, a, { type: "signup", visitorId: "v2" });
    expect(await variantCounts(a, id)).toEqual([
      ["control", 1, 1],
      ["b", 1, 1],
    ]);
  });

  it("changed variants count at once on another process, and a completed experiment stops counting", async () => {
    const a = await t.tenant();
    await a.post("/api/conversion-goals", { name: "Signup", eventType: "signup" });
    const e = (
      await a.post("/api/experiments", {
        name: "Variants",
        targetUrl: "/checkout",
        variants: [{ name: "control" }, { name: "b" }],
      })
    ).body;
    await send(other, a, { type: "$exposure", visitorId: "v0", data: { experimentId: e.id, variant: "b" } });
    await a.patch("/api/experiments", { id: e.id, variants: [{ name: "control" }, { name: "c" }] });
    await a.patch("/api/experiments", { id: e.id, status: "running" });
    await send(other, a, { type: "$exposure", visitorId: "v1", data: { experimentId: e.id, variant: "c" } });
    await send(other, a, { type: "$exposure", visitorId: "v2", data: { experimentId: e.id, variant: "b" } });
    await send(other, a, { type: "signup", visitorId: "v1" });
    expect(await variantCounts(a, e.id)).toEqual([
      ["control", 0, 0],
      ["c", 1, 1],
    ]);
    expect((await a.patch("/api/experiments", { id: e.id, status: "completed" })).status).toBe(200);
    await send(other, a, { type: "$exposure", visitorId: "v3", data: { experimentId: e.id, variant: "c" } });
    await send(other, a, {
      type: "$exposure",
      visitorId: "v4",
      data: { experimentId: e.id, variant: "control" },
    });
    expect(await variantCounts(a, e.id)).toEqual([
      ["control", 0, 0],
      ["c", 1, 1],
    ]);
  });
});

const onPostgres = isPostgres({ databaseUrl: process.env.DATABASE_URL });

// READ COMMITTED: an events transaction that read the configuration before a change committed
// must not commit after it. SQLite has a single writer, so there the order holds by construction
// (and a second connection in this process would block the event loop while it waits).
if (onPostgres)
  describe("ordering against an open events transaction (PostgreSQL)", () => {
    it("a configuration change waits for an events transaction that already read the configuration", async () => {
      const a = await t.tenant();
      await send(other, a, { type: "pageview", visitorId: "v0" });
      let reached!: () => void;
      const inside = new Promise<void>((r) => {
        reached = r;
      });
      let release!: () => void;
      hold = { reached, release: new Promise<void>((r) => (release = r)) };
      const order: string[] = [];
      const held = send(other, a, { type: "purchase", visitorId: "v1", data: { hold: true } }).then(() =>
        order.push("events"),
      );
      let changed = false;
      try {
        await inside; // the processors of that transaction have read the (empty) goal list
        const change = a
          .post("/api/conversion-goals", { name: "Purchase", eventType: "purchase" })
          .then((r) => {
            changed = true;
            order.push("change");
            return r;
          });
        // Either the change committed under the open events transaction (the bug) or it waits for it.
        await vi.waitFor(
          async () => {
            if (changed) return;
            const { rows } = await sql<{ n: number }>`
            select count(*)::int as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock'
              and (query ilike '%project_config_versions%' or query ilike '%pg_advisory_xact_lock%')`.execute(
              t.app.db,
            );
            if (rows[0]!.n === 0) throw new Error("the change is neither committed nor waiting yet");
          },
          { timeout: 10_000, interval: 20 },
        );
        expect(changed).toBe(false);
        release();
        await held;
        expect((await change).status).toBe(201);
      } finally {
        release();
        hold = null;
        await held;
      }
      expect(order).toEqual(["events", "change"]);
      // The held event committed before the goal existed; the next one counts.
      expect(await conversions(a)).toBe(0);
      await send(other, a, { type: "purchase", visitorId: "v2" });
      expect(await conversions(a)).toBe(1);
    });
    it("a change waiting for an events transaction goes before the events transactions that come after it", async () => {
      const a = await t.tenant();
      const db = t.app.db;
      const versionOf = async () =>
        Number(
          (
            await db
              .selectFrom("project_config_versions")
              .select("version")
              .where("project_id", "=", a.projectId)
              .executeTakeFirst()
          )?.version ?? 0,
        );
      const waiting = async (n: number) =>
        vi.waitFor(
          async () => {
            const { rows } = await sql<{ n: number }>`
              select count(*)::int as n from pg_locks l join pg_stat_activity s on s.pid = l.pid
              where not l.granted and s.datname = current_database()`.execute(db);
            if (rows[0]!.n < n) throw new Error(`${rows[0]!.n} transactions wait, not ${n}`);
          },
          { timeout: 10_000, interval: 20 },
        );
      const gate = () => {
        let open!: () => void;
        const opened = new Promise<void>((r) => (open = r));
        return { opened, open };
      };
      // The version row exists, as it does for any project that ingested or changed anything.
      await db.transaction().execute((trx) => bumpConfigVersion(trx, a.projectId));
      const before = await versionOf();
      const order: string[] = [];
      const locked = gate();
      const finish = gate();
      const first = db.transaction().execute(async (trx) => {
        await readConfigVersions(trx, [a.projectId]);
        locked.open();
        await finish.opened;
        order.push("events 1");
      });
      let second: Promise<void> | undefined;
      let seen = -1;
      try {
        await locked.opened;
        const change = db.transaction().execute(async (trx) => {
          await bumpConfigVersion(trx, a.projectId);
          order.push("change");
        });
        await waiting(1);
        second = db.transaction().execute(async (trx) => {
          seen = (await readConfigVersions(trx, [a.projectId])).get(a.projectId)!;
          order.push("events 2");
        });
        // The second events transaction queues behind the waiting change. (A row share lock was
        // granted to it at once, and then to the next and the next: the change waited for a gap.)
        await waiting(2);
        expect(order).toEqual([]);
        finish.open();
        await Promise.all([first, change, second]);
      } finally {
        finish.open();
        await Promise.allSettled([first, second]);
      }
      expect(order).toEqual(["events 1", "change", "events 2"]);
      expect(seen).toBe(before + 1);
    });
  });
