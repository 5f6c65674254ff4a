import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/platform/db/index.js";
import { Type } from "@sinclair/typebox";
import {
  JobWorker,
  NoPayload,
  RetryLater,
  defineJob,
  enqueueJob,
  exponentialBackoff,
  jobKind,
} from "../../src/platform/jobs/index.js";
import { type TestApp, startTestApp } from "../helpers/app.js";

const FLAKY_JOB = jobKind("test.flaky", Type.Object({ n: Type.Number() }));
const BROKEN_JOB = jobKind("test.broken", NoPayload);
const LATER_JOB = jobKind("test.later", NoPayload);
const UNIQUE_JOB = jobKind("test.unique", NoPayload);
const ONCE_JOB = jobKind("test.once", Type.Object({ i: Type.Integer() }));
const LONG_JOB = jobKind("test.long", NoPayload);
const TYPED_JOB = jobKind("test.typed", Type.Object({ sendId: Type.String() }));

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

async function waitFor(cond: () => Promise<boolean>, ms = 10_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("condition not met in time");
}

describe("jobs", () => {
  it("a job that fails twice then succeeds runs three times, with backoff between", async () => {
    const runs: number[] = [];
    t.app.jobs.define(
      defineJob(FLAKY_JOB, {
        retry: exponentialBackoff(5, 1),
        run: async () => {
          runs.push(Date.now());
          if (runs.length < 3) throw new Error(`failure ${runs.length}`);
        },
      }),
    );
    const id = await enqueueJob(t.app.db, FLAKY_JOB, { n: 1 });
    t.app.worker.start();
    await waitFor(async () => {
      const j = await t.app.db
        .selectFrom("jobs")
        .select("status")
        .where("id", "=", id!)
        .executeTakeFirstOrThrow();
      return j.status === "done";
    });
    await t.app.worker.stop();
    const job = await t.app.db.selectFrom("jobs").selectAll().where("id", "=", id!).executeTakeFirstOrThrow();
    expect(runs).toHaveLength(3);
    expect(job).toMatchObject({ status: "done", attempts: 3 });
  });

  it("gives up after the schedule and keeps the last error", async () => {
    let runs = 0;
    t.app.jobs.define(
      defineJob(BROKEN_JOB, {
        retry: [0, 0],
        run: async () => {
          runs++;
          throw new Error("still broken");
        },
      }),
    );
    const id = await enqueueJob(t.app.db, BROKEN_JOB, {});
    for (let i = 0; i < 5; i++) {
      await t.app.worker.drain();
      await new Promise((r) => setTimeout(r, 5));
    }
    const job = await t.app.db.selectFrom("jobs").selectAll().where("id", "=", id!).executeTakeFirstOrThrow();
    expect(runs).toBe(3);
    expect(job).toMatchObject({ status: "failed", last_error: "still broken" });
  });

  it("RetryLater delays the next attempt by at least what it asks", async () => {
    t.app.jobs.define(
      defineJob(LATER_JOB, {
        retry: [0],
        run: async () => {
          throw new RetryLater("busy", 60_000);
        },
      }),
    );
    const id = await enqueueJob(t.app.db, LATER_JOB, {});
    await t.app.worker.drain();
    const job = await t.app.db.selectFrom("jobs").selectAll().where("id", "=", id!).executeTakeFirstOrThrow();
    expect(job.status).toBe("queued");
    expect(job.run_at).toBeGreaterThan(Date.now() + 50_000);
  });

  it("a stored payload that does not fit its job's schema fails permanently, without running", async () => {
    let runs = 0;
    t.app.jobs.define(defineJob(TYPED_JOB, { retry: [0, 0], run: async () => void runs++ }));
    // Written by hand, as an older release (or a bad migration) could have left it.
    const id = "job_badpayload";
    const now = new Date().toISOString();
    await t.app.db
      .insertInto("jobs")
      .values({
        id,
        type: TYPED_JOB.type,
        payload: JSON.stringify({ sendId: 42 }),
        status: "queued",
        attempts: 0,
        max_attempts: 0,
        run_at: Date.now(),
        locked_until: null,
        locked_by: null,
        last_error: null,
        unique_key: null,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await t.app.worker.drain();
    const job = await t.app.db.selectFrom("jobs").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    expect(runs).toBe(0);
    expect(job).toMatchObject({ status: "failed", last_error: "test.typed payload.sendId must be a string" });
  });

  it("a unique key skips a second enqueue while the first is pending", async () => {
    const a = await enqueueJob(t.app.db, UNIQUE_JOB, {}, { uniqueKey: "u1", delayMs: 60_000 });
    const b = await enqueueJob(t.app.db, UNIQUE_JOB, {}, { uniqueKey: "u1" });
    expect(a).toMatch(/^job_/);
    expect(b).toBeNull();
  });

  it("two workers on separate connections never run the same job", async () => {
    const seen: string[] = [];
    t.app.jobs.define(
      defineJob(ONCE_JOB, {
        retry: [],
        run: async ({ i }) => {
          seen.push(String(i));
          await new Promise((r) => setTimeout(r, 1));
        },
      }),
    );
    for (let i = 0; i < 60; i++) await enqueueJob(t.app.db, ONCE_JOB, { i });
    // A second handle: its own pool (PostgreSQL) or its own connection to the file (SQLite).
    const other = openDatabase(t.config);
    const w1 = new JobWorker(t.app.dbHandle, t.app.jobs, t.config, t.app.log, { pollMs: 5 });
    const w2 = new JobWorker(other, t.app.jobs, t.config, t.app.log, { pollMs: 5 });
    await Promise.all([w1.drain(), w2.drain(), w1.drain(), w2.drain()]);
    await other.close();
    expect(seen).toHaveLength(60);
    expect(new Set(seen).size).toBe(60);
    const left = await t.app.db
      .selectFrom("jobs")
      .select("id")
      .where("type", "=", "test.once")
      .where("status", "!=", "done")
      .execute();
    expect(left).toEqual([]);
  });

  it("a live worker keeps a job that outlasts its lease; another worker does not run it again", async () => {
    // Renewal comes every third of the lease, so the lease survives a stall of two thirds of it. A
    // 300 ms lease lost the job to the other worker on a loaded CI machine (a 200 ms stall of this
    // process); 1.5 s leaves a 1 s margin while the job still runs past two leases.
    const LEASE_MS = 1500;
    let runs = 0;
    t.app.jobs.define(
      defineJob(LONG_JOB, {
        retry: [],
        run: async () => {
          runs++;
          await new Promise((r) => setTimeout(r, 4000));
        },
      }),
    );
    await enqueueJob(t.app.db, LONG_JOB, {});
    const other = openDatabase(t.config);
    const w1 = new JobWorker(t.app.dbHandle, t.app.jobs, t.config, t.app.log, {
      pollMs: 5,
      leaseMs: LEASE_MS,
    });
    const w2 = new JobWorker(other, t.app.jobs, t.config, t.app.log, { pollMs: 5, leaseMs: LEASE_MS });
    const first = w1.drain();
    // Keep the second worker looking for due jobs while the first one runs past two leases.
    const deadline = Date.now() + 3800;
    while (Date.now() < deadline) {
      await w2.drain();
      await new Promise((r) => setTimeout(r, 50));
    }
    await first;
    await other.close();
    expect(runs).toBe(1);
  });

  it("service events are dispatched to subscribers after commit", async () => {
    const got: string[] = [];
    t.app.jobs.onServiceEvent(async (e) => {
      got.push(`${e.type}:${(e.data as { id: string }).id}`);
    });
    const { emitServiceEvent } = await import("../../src/platform/jobs/index.js");
    await t.app.db
      .transaction()
      .execute(async (trx) =>
        emitServiceEvent(trx, { workspaceId: "ws_x", projectId: "prj_x" }, "lead.created", { id: "lead_1" }),
      );
    // A rolled-back transaction leaves no event behind.
    await t.app.db
      .transaction()
      .execute(async (trx) => {
        await emitServiceEvent(trx, { workspaceId: "ws_x", projectId: "prj_x" }, "lead.created", {
          id: "lead_2",
        });
        throw new Error("rollback");
      })
      .catch(() => {});
    await t.app.worker.drain();
    expect(got).toEqual(["lead.created:lead_1"]);
  });
});
