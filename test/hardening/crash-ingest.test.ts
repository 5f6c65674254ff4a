import path from "node:path";
import SQLite from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LiftStore, liftStore, crashMoments } from "./lift-process.js";

/**
 * Concurrent ingest (single snippet events and batches) with the real server SIGKILLed at a random
 * moment, ROUNDS times on the same database: every event answered 200 is stored exactly once, and
 * no event is stored twice. Every event carries a unique mark in `data` to count it by.
 */
const ROUNDS = 10;
const CLIENTS = 6;
const BATCH = 25;

let store: LiftStore;
beforeAll(async () => {
  store = await liftStore("ingest");
});
afterAll(async () => store?.dispose());

// The kill moments can be replayed (CRASH_SEED).
const { seed, random } = crashMoments();

async function storedMarks(): Promise<string[]> {
  const q = "select data from events";
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
  return rows.map((r) => (JSON.parse(r.data) as { mark?: string }).mark ?? "");
}

describe("ingest across SIGKILLs", () => {
  it(`every acknowledged event is stored exactly once (${ROUNDS} rounds, seed ${seed})`, async () => {
    const acked = new Set<string>();
    let sent = 0;
    const url = "https://shop.example.com/";
    let publicKey: string | undefined;
    for (let round = 0; round < ROUNDS; round++) {
      const server = await store.start();
      // The public key is printed on the first start only.
      publicKey ??= /public key:\s+(\S+)/.exec(server.output())?.[1];
      const key = publicKey!;
      let stop = false;
      const client = async (c: number) => {
        for (let i = 0; !stop; i++) {
          const batch = i % 2 === 0;
          const marks = Array.from({ length: batch ? BATCH : 1 }, (_, j) => `r${round}c${c}i${i}j${j}`);
          const body = batch
            ? {
                projectKey: key,
                visitorId: `v${c}`,
                events: marks.map((mark) => ({ type: "click", url, data: { mark } })),
              }
            : { projectKey: key, visitorId: `v${c}`, type: "pageview", url, data: { mark: marks[0] } };
          sent += marks.length;
          const res = await fetch(`${server.base}/api/events`, {
            method: "POST",
            headers: { "content-type": "application/json", "user-agent": "Mozilla/5.0 Firefox/128.0" },
            body: JSON.stringify(body),
          }).catch(() => null);
          if (res?.status === 200) for (const m of marks) acked.add(m);
          else if (res) await res.body?.cancel();
        }
      };
      const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
      await new Promise((r) => setTimeout(r, 200 + random() * 1300));
      await server.kill();
      stop = true;
      await Promise.all(clients);
    }
    const stored = await storedMarks();
    const counts = new Map<string, number>();
    for (const m of stored) counts.set(m, (counts.get(m) ?? 0) + 1);
    const missing = [...acked].filter((m) => !counts.has(m));
    const doubled = [...counts].filter(([, n]) => n > 1).map(([m]) => m);
    console.log(
      `crash-ingest (seed ${seed}): ${ROUNDS} SIGKILL rounds, ${sent} events sent, ${acked.size} acknowledged, ${stored.length} stored, ${missing.length} lost, ${doubled.length} doubled`,
    );
    expect(acked.size).toBeGreaterThan(ROUNDS * 50);
    expect(missing).toEqual([]);
    expect(doubled).toEqual([]);
  }, 300_000);
});
