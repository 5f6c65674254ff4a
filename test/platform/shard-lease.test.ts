import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Config, loadConfig } from "../../src/config.js";
import { type DbHandle, openDatabase } from "../../src/platform/db/index.js";
import { SHARD_COUNT, type ShardLease, claimWriterShard } from "../../src/platform/db/shard-lease.js";
import { writerShard } from "../../src/platform/db/shard.js";
import { waitFor } from "../helpers/net.js";
import { startPgCluster } from "../helpers/pg-cluster.js";

/**
 * Issue 35, item 3: each process holds a writer shard of its own for its lifetime, so no two live
 * processes write the same counter rows. Before, a process's shard was a hash of host and port
 * modulo 15: two processes shared one a time in fifteen and queued on the same rows. On a cluster
 * of the test's own (so it runs in the SQLite stage of CI too).
 */
let cluster: Awaited<ReturnType<typeof startPgCluster>>;
let config: Config;
const handles: DbHandle[] = [];
const leases: ShardLease[] = [];
const logged: string[] = [];
const log = {
  info: (_o: object, m: string) => logged.push(m),
  warn: (_o: object, m: string) => logged.push(m),
};

beforeAll(async () => {
  cluster = await startPgCluster();
  config = { ...loadConfig({}, { secretKey: "x".repeat(32) }), databaseUrl: cluster.url, port: 3000 };
}, 60_000);
afterAll(async () => {
  for (const l of leases) await l.release();
  for (const h of handles) await h.close();
  await cluster?.stop();
});

async function process_(overrides: Partial<Config> = {}, retryMs = 20) {
  const handle = openDatabase({ ...config, ...overrides });
  handles.push(handle);
  const lease = await claimWriterShard(handle, { ...config, ...overrides }, log, { retryMs });
  leases.push(lease);
  return { handle, lease };
}

describe("writer shards are claimed, not hashed", () => {
  it("processes on one host and port (a hash collision every time) each get a shard of their own", async () => {
    const three = [await process_(), await process_(), await process_()];
    const shards = three.map((p) => writerShard(p.handle.db));
    expect(new Set(shards).size).toBe(3);
    for (const s of shards) expect(s).toBeGreaterThanOrEqual(1);
    for (const s of shards) expect(s).toBeLessThanOrEqual(SHARD_COUNT);
    expect(three.map((p) => p.lease.shard)).toEqual(shards);
    // A released shard is the next process's first choice again (a restart reuses its rows).
    await three[0]!.lease.release();
    const next = await process_();
    expect(writerShard(next.handle.db)).toBe(shards[0]);
  });

  it("a pinned shard (ROLLUP_SHARD) held by a live process is waited for, with a warning, then taken", async () => {
    const holder = await process_({ rollupShard: 7 });
    expect(holder.lease.shard).toBe(7);
    let got: number | undefined;
    const waiting = process_({ rollupShard: 7 }).then((p) => {
      got = p.lease.shard;
    });
    // Waits for the warning rather than a fixed time: a loaded machine may take longer to get there.
    await waitFor(() =>
      logged.includes("writer shard 7 (ROLLUP_SHARD) is held by another live process: waiting for it"),
    );
    await new Promise((r) => setTimeout(r, 100));
    expect(got).toBeUndefined();
    await holder.lease.release();
    await waiting;
    expect(got).toBe(7);
  });

  it("a killed process's shard is free at once; a lease whose connection is cut claims again", async () => {
    // A process killed with SIGKILL leaves PostgreSQL a closed connection: the lock goes with it.
    const { lease } = await process_({ rollupShard: 11 });
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    try {
      const holder = await admin.query<{ pid: number }>(
        "select pid from pg_locks where locktype = 'advisory' and objid = 11 and granted",
      );
      expect(holder.rows).toHaveLength(1);
      await admin.query("select pg_terminate_backend($1)", [holder.rows[0]!.pid]);
      // The lease notices, claims again (its own shard is free now) and keeps writing it.
      const deadline = Date.now() + 5000;
      for (;;) {
        const again = await admin.query(
          "select pid from pg_locks where locktype = 'advisory' and objid = 11 and granted and pid <> $1",
          [holder.rows[0]!.pid],
        );
        if (again.rows.length === 1) break;
        if (Date.now() > deadline) throw new Error("the shard was not claimed again");
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(lease.shard).toBe(11);
      expect(logged).toContain("lost the connection holding the writer shard: claiming again");
    } finally {
      await admin.end();
    }
  });

  it("when every shard is held, a process says so and waits", async () => {
    const before = logged.length;
    const held: ShardLease[] = [];
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    const granted = async () =>
      Number(
        (await admin.query("select count(*) as n from pg_locks where locktype = 'advisory' and granted"))
          .rows[0].n,
      );
    // Fill the rest of the range.
    while ((await granted()) < SHARD_COUNT) held.push((await process_()).lease);
    await admin.end();
    let settled = false;
    const late = process_().then(() => {
      settled = true;
    });
    await waitFor(() =>
      logged
        .slice(before)
        .includes(
          `all ${SHARD_COUNT} writer shards are held by live processes: waiting for one to be released`,
        ),
    );
    await new Promise((r) => setTimeout(r, 100));
    expect(settled).toBe(false);
    await held[0]!.release();
    await late;
    expect(settled).toBe(true);
  }, 30_000);
});
