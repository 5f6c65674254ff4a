import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import SQLite from "better-sqlite3";
import { startCheckpointer } from "../../src/platform/db/checkpointer.js";
import { openDatabase } from "../../src/platform/db/index.js";
import { waitFor } from "../helpers/net.js";

const dataDir = mkdtempSync(path.join(tmpdir(), "lift-ckpt-"));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

// SQLite only, whatever DATABASE_URL says: the checkpointer belongs to SQLite files.
describe("WAL checkpoints on their own thread", () => {
  it("copies committed pages into the database file while the app's connection never checkpoints", async () => {
    const config = { ...loadConfig({}, { dataDir, secretKey: "t" }), databaseUrl: undefined };
    const handle = openDatabase(config);
    const sqlite = handle.sqlite!;
    expect(sqlite.pragma("wal_autocheckpoint", { simple: true })).toBe(100_000);
    sqlite.exec("create table blobs (id integer primary key, body text not null)");
    const insert = sqlite.prepare("insert into blobs (body) values (?)");
    const body = "x".repeat(3000);
    // ~2400 pages in 8 commits: far below the connection's own auto-checkpoint
    for (let c = 0; c < 8; c++)
      sqlite.transaction(() => {
        for (let i = 0; i < 300; i++) insert.run(body);
      })();
    await waitFor(() => statSync(config.sqlitePath).size > 8_000_000, 10_000);
    expect((sqlite.prepare("select count(*) as n from blobs").get() as { n: number }).n).toBe(2400);
    await handle.close(); // stops the thread: the test process would not exit otherwise
  });

  it("lets the app's connection truncate the WAL once the thread reports it large", async () => {
    const file = path.join(dataDir, "restart.db");
    const sqlite = new SQLite(file);
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("wal_autocheckpoint = 0");
    sqlite.pragma("busy_timeout = 5000"); // as the app's connection: waits out a pass of the thread
    sqlite.exec("create table blobs (id integer primary key, body text not null)");
    const checkpointer = startCheckpointer(file, { intervalMs: 10, restartFrames: 500 });
    const truncate = async () =>
      (sqlite.pragma("wal_checkpoint(truncate)") as { busy: number }[])[0]!.busy === 0;
    const insert = sqlite.prepare("insert into blobs (body) values (?)");
    sqlite.transaction(() => {
      for (let i = 0; i < 100; i++) insert.run("y".repeat(3000));
    })();
    await new Promise((r) => setTimeout(r, 100));
    await checkpointer.restartIfLarge(truncate); // ~100 frames: below the bound, nothing happens
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(300_000);
    sqlite.transaction(() => {
      for (let i = 0; i < 1000; i++) insert.run("y".repeat(3000));
    })();
    const before = statSync(`${file}-wal`).size;
    expect(before).toBeGreaterThan(3_000_000);
    // Once the thread has reported the WAL large, a refused truncation (a checkpoint busy
    // elsewhere) leaves it so: the next call tries again.
    let refused = 0;
    await waitFor(async () => {
      await checkpointer.restartIfLarge(async () => {
        refused++;
        return false;
      });
      return refused > 0;
    }, 10_000);
    let attempts = 0;
    const counted = async () => {
      attempts++;
      return truncate();
    };
    await checkpointer.restartIfLarge(counted);
    expect(attempts).toBe(1);
    await waitFor(async () => {
      await checkpointer.restartIfLarge(counted);
      return statSync(`${file}-wal`).size === 0;
    }, 10_000);
    expect((sqlite.prepare("select count(*) as n from blobs").get() as { n: number }).n).toBe(1100);
    await checkpointer.stop();
    sqlite.close();
  });

  it("never holds the write lock: the app's read-then-write transactions do not get SQLITE_BUSY", async () => {
    const file = path.join(dataDir, "busy.db");
    const sqlite = new SQLite(file);
    sqlite.pragma("journal_mode = WAL");
    sqlite.pragma("busy_timeout = 5000");
    sqlite.exec("create table blobs (id integer primary key, body text not null)");
    const checkpointer = startCheckpointer(file, { intervalMs: 1, restartFrames: 50 });
    const count = sqlite.prepare("select count(*) as n from blobs");
    const insert = sqlite.prepare("insert into blobs (body) values (?)");
    // deferred: the transaction reads first, so it could not wait for a lock held elsewhere
    const readThenWrite = sqlite.transaction(() => {
      count.get();
      for (let i = 0; i < 20; i++) insert.run("z".repeat(3000));
    });
    const end = Date.now() + 1000;
    let done = 0;
    while (Date.now() < end) {
      readThenWrite();
      done++;
      await new Promise((r) => setImmediate(r)); // lets the thread's passes interleave
    }
    expect(done).toBeGreaterThan(20);
    expect((count.get() as { n: number }).n).toBe(done * 20);
    await checkpointer.stop();
    sqlite.close();
  });
});
