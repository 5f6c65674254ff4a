import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isPostgres } from "../../src/config.js";
import { attributionSummary } from "../../src/modules/analytics/reports/attribution.js";
import { addAttributionCredits } from "../../src/modules/analytics/ingest/credit-store.js";
import { recordLeadCreated } from "../../src/modules/analytics/ingest/identity-changes.js";
import {
  bumpGoalStats,
  bumpStats,
  goalStatsDelta,
  type GoalStatsDelta,
  type StatsDelta,
  statsDelta,
} from "../../src/modules/experiments/store.js";
import {
  type Db,
  type DbHandle,
  type Trx,
  openDatabase,
  withTransaction,
} from "../../src/platform/db/index.js";
import { writerShard } from "../../src/platform/db/shard.js";
import { type Tenant, type TestApp, startTestApp } from "../helpers/app.js";

/**
 * Issue 18: counters that many visitors' events add to (experiment variants and goals, attribution
 * credits, leads per day) are written per process on PostgreSQL, so two API processes' events
 * transactions never wait for each other on them; reads sum the processes' rows.
 */
let t: TestApp;
/** A second process's handle on the same database: its own pool and shard. */
let other: DbHandle;
const onPostgres = isPostgres({ databaseUrl: process.env.DATABASE_URL });

beforeAll(async () => {
  t = await startTestApp({ rollupShard: 1 });
  other = openDatabase({ ...t.config, rollupShard: 2 });
});
afterAll(async () => {
  await other.close();
  await t.close();
});

describe("the shard a process writes", () => {
  it("is the configured one on PostgreSQL and 0 on SQLite, in transactions too", async () => {
    expect(writerShard(t.app.db)).toBe(onPostgres ? 1 : 0);
    expect(writerShard(other.db)).toBe(onPostgres ? 2 : 0);
    await withTransaction(other.db, async (trx) => expect(writerShard(trx)).toBe(onPostgres ? 2 : 0));
  });
});

const DAY = Date.UTC(2026, 10, 2);

async function startExperiment(a: Tenant): Promise<{ experimentId: string; goalId: string }> {
  const goal = await a.post("/api/conversion-goals", { name: "Signup", eventType: "signup" });
  expect(goal.status).toBe(201);
  const e = await a.post("/api/experiments", {
    name: "Shards",
    targetUrl: "/pricing",
    variants: [{ name: "control" }, { name: "b" }],
    metrics: { secondary: [goal.body.id] },
  });
  expect(e.status, JSON.stringify(e.body)).toBe(201);
  return { experimentId: e.body.id as string, goalId: goal.body.id as string };
}

/** The same additions, as each process's flush would make them. */
async function addAll(trx: Trx, a: Tenant, experimentId: string, goalId: string): Promise<void> {
  const stats = new Map<string, StatsDelta>();
  const d = statsDelta(stats, experimentId, "control");
  d.e = 1;
  d.c = 1;
  d.revenue = 10;
  d.squares = 100;
  await bumpStats(trx, stats);
  const goals = new Map<string, GoalStatsDelta>();
  goalStatsDelta(goals, experimentId, goalId, "control").n = 1;
  await bumpGoalStats(trx, goals);
  await addAttributionCredits(trx, a.projectId, [
    { day: Math.floor(DAY / 86_400_000), model: "last_touch", channel: "organic", credited: 1, revenue: 10 },
  ]);
  await recordLeadCreated(
    trx,
    { id: a.projectId, workspaceId: a.workspaceId },
    { channel: "organic", createdAt: DAY },
  );
}

if (onPostgres)
  describe("two processes adding to the same counters (PostgreSQL)", () => {
    it("neither waits for the other's open transaction, and reads sum both", async () => {
      const a = await t.tenant();
      const { experimentId, goalId } = await startExperiment(a);
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      let added!: () => void;
      const first = new Promise<void>((r) => (added = r));
      // Process 1 adds and keeps its transaction (and its row locks) open.
      const held = withTransaction(t.app.db as Db, async (trx) => {
        await addAll(trx, a, experimentId, goalId);
        added();
        await released;
      });
      try {
        await first;
        // Process 2 adds to the same counters meanwhile; a row lock of process 1 would time out.
        await withTransaction(other.db, async (trx) => {
          await sql`set local lock_timeout = '2s'`.execute(trx);
          await addAll(trx, a, experimentId, goalId);
        });
      } finally {
        release();
        await held;
      }
      const e = await a.get(`/api/experiments/${experimentId}`);
      expect(e.status).toBe(200);
      const control = e.body.results.variants.find((v: { name: string }) => v.name === "control");
      expect([control.exposures, control.conversions]).toEqual([2, 2]);
      const secondary = e.body.results.secondary[0].variants.map(
        (v: { conversions: number }) => v.conversions,
      );
      expect(secondary).toEqual([2, 0]);
      const day = Math.floor(DAY / 86_400_000);
      const project = { id: a.projectId, workspaceId: a.workspaceId };
      const period = { fromDay: day, toDay: day, from: "2026-11-02", to: "2026-11-02" };
      const credits = await attributionSummary(t.app.db, project, "last_touch", period);
      expect(credits.channels).toEqual([{ channel: "organic", creditedConversions: 2, revenue: 20 }]);
      const leads = await t.app.db
        .selectFrom("analytics_daily")
        .select(["shard", "leads"])
        .where("project_id", "=", a.projectId)
        .where("channel", "=", "organic")
        .orderBy("shard")
        .execute();
      expect(leads.map((r) => [Number(r.shard), Number(r.leads)])).toEqual([
        [1, 1],
        [2, 1],
      ]);
    });
  });
