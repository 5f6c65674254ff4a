import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
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
});
