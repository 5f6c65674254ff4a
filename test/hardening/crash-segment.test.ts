import path from "node:path";
import SQLite from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LiftStore, liftStore, printedApiKey, crashMoments } from "./lift-process.js";

/**
 * Segment batches sent by clients that retry every batch until it is acknowledged, as the SDKs do
 * (some sends time out early, as an SDK's request timeout), with the real server SIGKILLed at
 * random moments, ROUNDS times on the same database. A batch committed but not acknowledged is
 * sent again: its messages must not be stored twice; a batch killed before its commit must not find
 * its messageIds taken. So every message is stored exactly once: the dedup keys commit with the
 * events, or neither does.
 */
const ROUNDS = 6;
const CLIENTS = 4;
const BATCH = 25;

let store: LiftStore;
beforeAll(async () => {
  store = await liftStore("segment");
});
afterAll(async () => store?.dispose());

// The kill moments can be replayed (CRASH_SEED).
const { seed, random } = crashMoments();

async function storedMarks(): Promise<string[]> {
  const q = "select data from events where type = 'Crash Test'";
  let rows: { data: string }[];
  if (store.databaseUrl) {
    const c = new pg.Client({ connectionString: store.databaseUrl });
    await c.connect();
    rows = (await c.query(q)).rows;
    await c.end();
  } else {
    const db = new SQLite(path.join(store.dataDir, "lift.db"));
    rows = db.prepare(q).all() as { data: string }[];
    db.close();
  }
  return rows.map((r) => (JSON.parse(r.data) as { mark: string }).mark);
}

type Batch = { marks: string[]; body: string };

describe("Segment batches across SIGKILLs, retried until acknowledged", () => {
  it(`stores every message exactly once (${ROUNDS} rounds, seed ${seed})`, async () => {
    const pending: Batch[] = [];
    const sent = new Set<string>();
    let key: string | undefined;
    let next = 0;
    const newBatch = (): Batch => {
      const b = next++;
      const batch = Array.from({ length: BATCH }, (_, j) => ({
        type: j % 5 === 0 ? "page" : "track",
        event: "Crash Test",
        anonymousId: `v${b % 7}`,
        messageId: `crash-${b}-${j}`,
        properties: { mark: `crash-${b}-${j}` },
        context: { page: { url: "https://shop.example.com/" } },
      }));
      // Every fifth message is a pageview (web origin, a session): the tracks are counted.
      const marks = batch.filter((m) => m.type === "track").map((m) => m.messageId);
      for (const m of marks) sent.add(m);
      return { marks, body: JSON.stringify({ batch }) };
    };
    // Some sends give up early, as an SDK's request timeout does: the server may well commit them.
    const send = async (base: string, batch: Batch, patient = false): Promise<boolean> => {
      const res = await fetch(`${base}/v1/batch`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Basic ${btoa(`${key}:`)}` },
        body: batch.body,
        signal: !patient && random() < 0.25 ? AbortSignal.timeout(5 + Math.floor(random() * 30)) : undefined,
      }).catch(() => null);
      if (res?.status === 200) {
        await res.body?.cancel();
        return true;
      }
      await res?.body?.cancel();
      return false;
    };
    let retried = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const server = await store.start();
      key ??= printedApiKey(server.output());
      let stop = false;
      const client = async () => {
        while (!stop) {
          const batch = pending.shift() ?? newBatch();
          if (!(await send(server.base, batch))) {
            pending.push(batch);
            retried++;
          }
        }
      };
      const clients = Array.from({ length: CLIENTS }, () => client());
      await new Promise((r) => setTimeout(r, 300 + random() * 1200));
      await server.kill();
      stop = true;
      await Promise.all(clients);
    }
    // The last start: the clients' retries drain.
    const server = await store.start();
    for (const batch of pending.splice(0)) expect(await send(server.base, batch, true)).toBe(true);
    await server.kill();

    const stored = await storedMarks();
    const counts = new Map<string, number>();
    for (const m of stored) counts.set(m, (counts.get(m) ?? 0) + 1);
    const missing = [...sent].filter((m) => !counts.has(m));
    const doubled = [...counts].filter(([, n]) => n > 1).map(([m]) => m);
    console.log(
      `crash-segment (seed ${seed}): ${ROUNDS} SIGKILL rounds, ${next} batches, ${retried} sends retried, ${sent.size} tracks sent, ${stored.length} stored, ${missing.length} lost, ${doubled.length} doubled`,
    );
    expect(next).toBeGreaterThan(ROUNDS * 4);
    expect(retried).toBeGreaterThan(0);
    expect(missing).toEqual([]);
    expect(doubled).toEqual([]);
    expect(stored.length).toBe(sent.size);
  }, 300_000);
});
