import path from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import SQLite from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LiftStore, call, liftStore, printedApiKey, crashMoments } from "./lift-process.js";

/**
 * The analytics engine's copy across SIGKILLs: the real server ingests while its engine takes the
 * new events every 20 ms, and is killed at a random moment, ROUNDS times on the same data. After a
 * last start, whose report makes the engine catch up, the copy holds every stored event exactly
 * once (its pages and cursors commit together).
 */
const ROUNDS = 3;

let store: LiftStore;
beforeAll(async () => {
  store = await liftStore("engine");
});
afterAll(async () => store?.dispose());

// The kill moments can be replayed (CRASH_SEED).
const { seed, random } = crashMoments();

async function storedIds(): Promise<string[]> {
  const q = "select id from events";
  if (store.databaseUrl) {
    const c = new pg.Client({ connectionString: store.databaseUrl });
    await c.connect();
    const { rows } = await c.query<{ id: string }>(q);
    await c.end();
    return rows.map((r) => r.id);
  }
  const db = new SQLite(path.join(store.dataDir, "lift.db"), { readonly: true });
  const rows = db.prepare(q).pluck().all() as string[];
  db.close();
  return rows;
}

async function storedSessions(): Promise<number> {
  const q = "select count(*) as n from analytics_touchpoints";
  if (store.databaseUrl) {
    const c = new pg.Client({ connectionString: store.databaseUrl });
    await c.connect();
    const { rows } = await c.query<{ n: string }>(q);
    await c.end();
    return Number(rows[0]!.n);
  }
  const db = new SQLite(path.join(store.dataDir, "lift.db"), { readonly: true });
  const n = Number(db.prepare(q).pluck().get());
  db.close();
  return n;
}

async function copied(): Promise<{ ids: string[]; sessions: number; distinctSessions: number }> {
  const instance = await DuckDBInstance.create(path.join(store.dataDir, "analytics.duckdb"));
  const c = await instance.connect();
  const rows = (await c.runAndReadAll("select id from events")).getRowObjectsJS();
  const [s] = (
    await c.runAndReadAll("select count(*) as n, count(distinct session_id) as d from sessions")
  ).getRowObjectsJS();
  c.closeSync();
  instance.closeSync();
  return { ids: rows.map((r) => String(r.id)), sessions: Number(s!.n), distinctSessions: Number(s!.d) };
}

const desktop = encodeURIComponent(JSON.stringify([{ key: "device", op: "is", value: "desktop" }]));

describe("the analytics engine across SIGKILLs", () => {
  it(`holds every stored event once after kills during its appends (${ROUNDS} rounds, seed ${seed})`, async () => {
    let apiKey: string | undefined;
    let publicKey: string | undefined;
    for (let round = 0; round <= ROUNDS; round++) {
      const server = await store.start({ ENGINE_POLL: "20ms" });
      apiKey ??= printedApiKey(server.output());
      publicKey ??= /public key:\s+(\S+)/.exec(server.output())?.[1];
      // A filtered report starts the engine (and, in the last round, waits for it to catch up).
      const report = await call(server.base, "GET", `/api/analytics/summary?period=7d&filter=${desktop}`, {
        key: apiKey,
      });
      expect(report.status).toBe(200);
      if (round === ROUNDS) {
        await server.kill();
        break;
      }
      let stop = false;
      const client = async (c: number) => {
        for (let i = 0; !stop; i++) {
          const res = await fetch(`${server.base}/api/events`, {
            method: "POST",
            headers: { "content-type": "application/json", "user-agent": "Mozilla/5.0 Firefox/128.0" },
            // Browser page views (each visitor's first starts a session) and server batches.
            body: JSON.stringify(
              i % 2 === 0
                ? {
                    projectKey: publicKey,
                    visitorId: `r${round}c${c}v${i}`,
                    type: "pageview",
                    url: "https://shop.example.com/",
                  }
                : {
                    projectKey: publicKey,
                    visitorId: `r${round}c${c}v${i - 1}`,
                    events: Array.from({ length: 20 }, (_, j) => ({
                      type: "click",
                      url: `https://shop.example.com/p${j}`,
                    })),
                  },
            ),
          }).catch(() => null);
          await res?.body?.cancel();
        }
      };
      const clients = [client(0), client(1), client(2)];
      await new Promise((r) => setTimeout(r, 300 + random() * 1200));
      await server.kill();
      stop = true;
      await Promise.all(clients);
    }
    const stored = await storedIds();
    const copy = await copied();
    const copiedIds = copy.ids;
    const held = new Set(copiedIds);
    const doubled = copiedIds.length - held.size;
    const missing = stored.filter((id) => !held.has(id));
    console.log(
      `crash-engine (seed ${seed}): ${ROUNDS} SIGKILL rounds, ${stored.length} events stored, ${copiedIds.length} copied, ${missing.length} missing, ${doubled} doubled`,
    );
    expect(stored.length).toBeGreaterThan(ROUNDS * 100);
    expect(doubled).toBe(0);
    expect(missing).toEqual([]);
    expect(copiedIds.length).toBe(stored.length);
    // The sessions the events started, each once.
    expect(copy.sessions).toBe(await storedSessions());
    expect(copy.distinctSessions).toBe(copy.sessions);
    expect(copy.sessions).toBeGreaterThan(ROUNDS * 10);
  }, 300_000);
});
