import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import SQLite from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../../src/platform/errors.js";
import { ReadPool, type ReadPoolOptions } from "../../src/platform/read-pool/pool.js";
import { count, crash, echo, hog, refuse, slow, spin } from "./fixtures/read-pool-tasks.js";

/**
 * The read pool on its own: tasks answer from worker threads, and every bound holds — the queue,
 * a project's share, the deadline (the worker that overran is replaced), a crashed or starved
 * worker, refusals that cross the thread as they were thrown, streams read chunk by chunk.
 */

let dir: string;
let sqlitePath: string;
const pools: ReadPool[] = [];
const project = { id: "prj_a", workspaceId: "ws_a" };
const other = { id: "prj_b", workspaceId: "ws_a" };

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "lift-read-pool-"));
  sqlitePath = path.join(dir, "test.db");
  const db = new SQLite(sqlitePath);
  db.pragma("journal_mode = WAL");
  db.exec("create table t (x integer)");
  db.close();
});
afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
  rmSync(dir, { recursive: true, force: true });
});

function pool(opts: Partial<ReadPoolOptions> = {}): ReadPool {
  const p = new ReadPool(
    {
      entry: new URL("../../src/platform/read-pool/worker.ts", import.meta.url),
      tasks: new URL("./fixtures/read-pool-tasks.ts", import.meta.url),
    },
    { sqlitePath },
    {
      workers: 1,
      perWorker: 2,
      maxQueue: 4,
      perProject: 4,
      timeoutMs: 20_000,
      memoryMb: 256,
      pgConnections: 1,
      ...opts,
    },
  );
  pools.push(p);
  return p;
}

const refusal = async (p: Promise<unknown>) => {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
};

describe("the read pool", () => {
  it("answers from another thread, over its own read connection", async () => {
    const p = pool();
    const a = await p.run(echo, project, { n: 41 });
    expect(a).toMatchObject({ project: "prj_a", v: 42 });
    expect(a.thread).not.toBe(0);
  });

  it("refuses past its queue with 503 and Retry-After, and past a project's share with 429", async () => {
    const p = pool({ workers: 1, perWorker: 1, maxQueue: 2, perProject: 3 });
    const running = [p.run(slow, project, 300), p.run(slow, other, 300), p.run(slow, other, 300)];
    const full = await refusal(p.run(slow, project, 1));
    expect(full).toMatchObject({ code: "UNAVAILABLE", status: 503 });
    expect(full.headers["retry-after"]).toMatch(/^\d+$/);
    await Promise.all(running);

    const q = pool({ workers: 1, perWorker: 1, maxQueue: 10, perProject: 2 });
    const mine = [q.run(slow, project, 300), q.run(slow, project, 300)];
    const share = await refusal(q.run(slow, project, 1));
    expect(share).toMatchObject({ code: "RATE_LIMITED", status: 429 });
    // another project still gets its turn
    expect(await q.run(slow, other, 1)).toBe(1);
    await Promise.all(mine);
    expect(await q.run(slow, project, 1)).toBe(1);
  });

  it("answers 503 at the deadline, stops the worker that overran, and the next task runs on a new one", async () => {
    const p = pool({ workers: 1, perWorker: 1 });
    const first = await p.run(echo, project, { n: 1 });
    const late = await refusal(p.run(spin, project, 60_000, { deadlineMs: 400 }));
    expect(late).toMatchObject({ code: "UNAVAILABLE", status: 503 });
    expect(late.message).toMatch(/did not finish within/);
    const next = await p.run(echo, project, { n: 2 });
    expect(next.v).toBe(3);
    expect(next.thread).not.toBe(first.thread);
    // a task still queued at its deadline is dropped, never started
    const blocked = p.run(spin, project, 60_000, { deadlineMs: 3_000 });
    const queued = await refusal(p.run(echo, project, { n: 3 }, { deadlineMs: 200 }));
    expect(queued.code).toBe("UNAVAILABLE");
    await refusal(blocked);
    expect(p.load).toEqual({ queued: 0, running: 0 });
  });

  it("carries a task's refusal across as it was thrown", async () => {
    const err = await refusal(pool().run(refuse, project, null));
    expect(err).toMatchObject({
      code: "VALIDATION_ERROR",
      message: "input.filter: no cohort coh_x in this project",
    });
  });

  it("a worker that dies under a task: the task runs once more, then fails with 503; others are unharmed", async () => {
    const p = pool({ workers: 1, perWorker: 2 });
    const beside = p.run(slow, project, 500);
    const died = await refusal(p.run(crash, project, null));
    expect(died).toMatchObject({ code: "UNAVAILABLE" });
    expect(await beside).toBe(500);
    expect((await p.run(echo, project, { n: 5 })).v).toBe(6);
  });

  it("a task that needs more memory than a reader may use fails with 503, and the pool goes on", async () => {
    const p = pool({ memoryMb: 64 });
    const err = await refusal(p.run(hog, project, null));
    expect(err.message).toMatch(/more memory than a reader may use/);
    expect((await p.run(echo, project, { n: 7 })).v).toBe(8);
  }, 30_000);

  it("streams a task's chunks in order, and gives its place back when the reader stops early", async () => {
    const p = pool({ workers: 1, perWorker: 1, perProject: 1 });
    let text = "";
    for await (const chunk of p.stream(count, project, 5)) text += chunk;
    expect(text).toBe("0\n1\n2\n3\n4\n");

    const early = p.stream(count, project, 1_000_000);
    expect(await early.next()).toEqual({ done: false, value: "0\n" });
    expect((await refusal(p.run(echo, project, { n: 0 }))).code).toBe("RATE_LIMITED");
    await early.return?.();
    expect((await p.run(echo, project, { n: 9 })).v).toBe(10);
  });
});
