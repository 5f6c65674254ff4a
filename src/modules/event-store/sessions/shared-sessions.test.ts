import type { FastifyInstance } from "fastify";
import { Redis } from "ioredis";
import { withTransaction } from "../../../platform/db/index.js";
import { SharedSessions, visitorKey } from "./shared-sessions.js";
import { commitEvents, committed } from "../../analytics/analytics.testing.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../../app.js";
import { BROWSER_UA, startTestApp, type TestApp } from "../../../../test/helpers/app.js";
import { freePort } from "../../../../test/helpers/net.js";
import { startPgCluster } from "../../../../test/helpers/pg-cluster.js";
import { type RedisServer, startRedisServer } from "../../../../test/helpers/redis-server.js";

// Two apps (two event writers, as two API processes have) over one PostgreSQL and one Redis, both
// started by this file, so it runs the same in the SQLite and the PostgreSQL CI stages.
let cluster: Awaited<ReturnType<typeof startPgCluster>>;
let redis: RedisServer;
let first: TestApp;
let second: FastifyInstance;
let projectKey: string;

beforeAll(async () => {
  cluster = await startPgCluster();
  redis = await startRedisServer();
  first = await startTestApp({ databaseUrl: cluster.url, redisUrl: redis.url });
  second = await buildApp(first.config, { logger: false });
  await second.ready();
  projectKey = (await first.tenant()).publicKey;
}, 60_000);

afterAll(async () => {
  await second?.close();
  await first?.close();
  await redis?.stop();
  await cluster?.stop();
});

const T0 = Date.parse("2026-11-20T10:00:00Z");
const MIN = 60_000;

function send(app: FastifyInstance, visitorId: string, minute: number, key = projectKey) {
  return app.inject({
    method: "POST",
    url: "/api/events",
    headers: { "user-agent": BROWSER_UA, "content-type": "application/json" },
    payload: {
      projectKey: key,
      visitorId,
      type: "pageview",
      url: `https://shop.example/p/${minute}?utm_source=news&utm_medium=email`,
      timestamp: T0 + minute * MIN,
    },
  });
}

/** A pageview as `SharedSessions.assign` takes it, for a project of its own (no database rows). */
const pageOf = (projectId: string) => (visitorId: string, minute: number) => ({
  projectId,
  visitorId,
  ts: T0 + minute * MIN,
  url: "https://shop.example/",
  referrer: null,
});

async function sessionsOf(app: FastifyInstance, visitorId: string): Promise<string[]> {
  const rows = await app.db
    .selectFrom("events")
    .select(["session_id", "ts"])
    .where("visitor_id", "=", visitorId)
    .orderBy("ts")
    .execute();
  return rows.map((r) => r.session_id!);
}

describe("sessions across two API processes (PostgreSQL + Redis)", () => {
  it("a visitor whose events alternate between the processes gets the sessions one process gives", async () => {
    // Per visitor: 0, 10, 20 min (one session), then 70, 75 (a second after the 50-minute gap).
    const minutes = [0, 10, 20, 70, 75];
    const visitors = Array.from({ length: 40 }, (_, i) => `shared-${i}`);
    await Promise.all(
      visitors.map(async (v, i) => {
        for (const [k, m] of minutes.entries()) {
          const res = await send((k + i) % 2 === 0 ? first.app : second, v, m);
          expect(res.statusCode).toBe(200);
        }
      }),
    );
    for (const v of visitors) {
      const s = await sessionsOf(first.app, v);
      expect(new Set(s.slice(0, 3)).size, v).toBe(1);
      expect(new Set(s.slice(3)).size, v).toBe(1);
      expect(s[3], v).not.toBe(s[0]);
    }
  });

  it("keeps ingesting when Redis cannot be reached: sessions are decided in the process", async () => {
    const deadPort = await freePort();
    const alone = await buildApp(
      { ...first.config, redisUrl: `redis://127.0.0.1:${deadPort}` },
      { logger: false },
    );
    await alone.ready();
    try {
      for (const m of [0, 5, 50]) expect((await send(alone, "no-redis", m)).statusCode).toBe(200);
      const s = await sessionsOf(alone, "no-redis");
      expect(s).toHaveLength(3);
      expect(s[1]).toBe(s[0]);
      expect(s[2]).not.toBe(s[0]);
    } finally {
      await alone.close();
    }
  });

  it("a compare-and-set that finds one visitor changed by another process decides that visitor again", async () => {
    const client = new Redis(redis.url);
    const other = new Redis(redis.url);
    try {
      const state = (ts: number, sessionId: string) => ({
        first_seen: ts,
        first_channel: "direct",
        first_source: null,
        first_landing_page: "/",
        session_id: sessionId,
        session_started: ts,
        session_channel: "direct",
        session_source: null,
        session_landing_page: "/",
        last_seen: ts,
      });
      const [v, w] = [visitorKey("p_cas", "v"), visitorKey("p_cas", "w")];
      await client.set(v, `1|${JSON.stringify(state(T0, "ses_v1"))}`);
      await client.set(w, `1|${JSON.stringify(state(T0, "ses_w1"))}`);
      // Another process moves v on (a new session at T0 + 40 min) between this one's read and its
      // write, once.
      let raced = false;
      const keysPerEval: number[] = [];
      const racing = new Proxy(client, {
        get(target, prop, receiver) {
          if (prop !== "eval") return Reflect.get(target, prop, receiver);
          return async (...args: unknown[]) => {
            keysPerEval.push(Number(args[1]));
            if (!raced) {
              raced = true;
              await other.set(
                v,
                `2|${JSON.stringify({ ...state(T0 + 40 * MIN, "ses_v2"), first_seen: T0 })}`,
              );
            }
            return (target.eval as (...a: unknown[]) => Promise<unknown>)(...args);
          };
        },
      });
      const page = pageOf("p_cas");
      const result = await withTransaction(first.app.db, (trx) =>
        new SharedSessions(racing).assign(() => Promise.resolve(trx), [page("v", 42), page("w", 45)]),
      );
      expect(raced).toBe(true);
      // w's write stood; only v went again
      expect(keysPerEval).toEqual([2, 1]);
      // v continues the other process's session; w, untouched by it, starts a new one (45 min
      // after its last event) and that decision reaches Redis too.
      expect(result.infos[0]).toMatchObject({ sessionId: "ses_v2", started: false });
      expect(result.infos[1]!.started).toBe(true);
      const stored = (key: string) =>
        client
          .get(key)
          .then((raw) => ({ version: raw!.split("|")[0], ...JSON.parse(raw!.slice(raw!.indexOf("|") + 1)) }));
      const [sv, sw] = [await stored(v), await stored(w)];
      expect(sv).toMatchObject({ session_id: "ses_v2", last_seen: T0 + 42 * MIN });
      expect(sw).toMatchObject({ session_id: result.infos[1]!.sessionId, last_seen: T0 + 45 * MIN });
      // each write stores a new token
      expect(new Set([sv.version, sw.version, "1", "2"]).size).toBe(4);
      expect(result.changed.map((c) => [c.visitorId, c.st.session_id])).toEqual([
        ["w", result.infos[1]!.sessionId],
      ]);
    } finally {
      client.disconnect();
      other.disconnect();
    }
  });

  it("a touchpoint first stored without dimensions by one process takes them from the other's session start", async () => {
    const a = await first.tenant();
    const scope = { projectId: a.projectId, workspaceId: a.workspaceId };
    const event = (ts: number, started: boolean) =>
      committed(scope, {
        visitorId: "tp",
        sessionId: "ses-tp",
        url: "https://shop.example/landing?utm_source=google",
        source: "google",
        timestamp: ts,
        sessionStarted: started,
      });
    // The second process commits a later event of the session first; the first then commits the
    // event that started it.
    await commitEvents(second, [event(T0 + MIN, false)]);
    await commitEvents(first.app, [event(T0, true)]);
    const row = await first.app.db
      .selectFrom("analytics_touchpoints")
      .select(["ts", "source", "landing_page"])
      .where("project_id", "=", a.projectId)
      .executeTakeFirstOrThrow();
    expect({ ...row, ts: Number(row.ts) }).toEqual({
      ts: T0,
      source: "google",
      landing_page: "https://shop.example/landing",
    });
  });
});

describe("visitors a process wrote last (PostgreSQL + Redis)", () => {
  const page = pageOf("p_known");
  /** a Redis client that lists the session commands sent through it */
  function counting(client: Redis, calls: string[]): Redis {
    return new Proxy(client, {
      get(target, prop, receiver) {
        if (prop !== "eval" && prop !== "mget") return Reflect.get(target, prop, receiver);
        return (...args: unknown[]) => {
          calls.push(prop);
          return (target[prop] as (...a: unknown[]) => Promise<unknown>)(...args);
        };
      },
    });
  }

  it("are decided in one round trip; a newer state another process wrote comes back with the compare-and-set", async () => {
    const [client, otherClient] = [new Redis(redis.url), new Redis(redis.url)];
    const calls: string[] = [];
    const loads: string[] = [];
    const connection = () => {
      loads.push("db");
      return Promise.resolve(first.app.db);
    };
    try {
      const mine = new SharedSessions(counting(client, calls));
      const other = new SharedSessions(otherClient);
      const r1 = await mine.assign(connection, [page("k", 0)]);
      expect(calls).toEqual(["mget", "eval"]);
      expect(loads).toEqual(["db"]); // a visitor Redis does not hold: looked up in the database

      calls.length = 0;
      const r2 = await mine.assign(connection, [page("k", 5)]);
      expect(calls).toEqual(["eval"]);
      expect(r2.infos[0]).toMatchObject({ sessionId: r1.infos[0]!.sessionId, started: false });

      // Another process starts the visitor's next session (45 minutes later).
      const o = await other.assign(connection, [page("k", 50)]);
      expect(o.infos[0]!.started).toBe(true);
      calls.length = 0;
      const r3 = await mine.assign(connection, [page("k", 55)]);
      expect(calls).toEqual(["eval", "eval"]);
      expect(r3.infos[0]).toMatchObject({ sessionId: o.infos[0]!.sessionId, started: false });
      expect(loads).toEqual(["db"]);
    } finally {
      client.disconnect();
      otherClient.disconnect();
    }
  });

  it("a visitor forgotten and written again by another process is not taken for the remembered one", async () => {
    const [client, otherClient] = [new Redis(redis.url), new Redis(redis.url)];
    const connection = () => Promise.resolve(first.app.db);
    try {
      const mine = new SharedSessions(client);
      const other = new SharedSessions(otherClient);
      await mine.assign(connection, [page("aba", 0)]);
      // Erased elsewhere, then seen again there: each process has written the key once since it
      // was absent, so a counter from 1 would read the same on both.
      await other.forget([visitorKey("p_known", "aba")]);
      const o = await other.assign(connection, [page("aba", 10)]);
      expect(o.infos[0]!.started).toBe(true);
      const r = await mine.assign(connection, [page("aba", 12)]);
      expect(r.infos[0]).toMatchObject({ sessionId: o.infos[0]!.sessionId, started: false });
    } finally {
      client.disconnect();
      otherClient.disconnect();
    }
  });

  it("a decision that fails after writing some visitors drops them from Redis", async () => {
    const client = new Redis(redis.url);
    try {
      const mine = new SharedSessions(client);
      await mine.assign(() => Promise.resolve(first.app.db), [page("fail-a", 0)]);
      await client.del(visitorKey("p_known", "fail-a")); // expired: the compare-and-set finds it gone
      let calls = 0;
      const connection = () =>
        ++calls === 1 ? Promise.resolve(first.app.db) : Promise.reject(new Error("connection lost"));
      // fail-b is new (read from the database, then written); fail-a comes back stale and its
      // reload fails.
      await expect(mine.assign(connection, [page("fail-a", 5), page("fail-b", 5)])).rejects.toThrow(
        "connection lost",
      );
      expect(calls).toBe(2);
      expect(await client.exists(visitorKey("p_known", "fail-b"))).toBe(0);
    } finally {
      client.disconnect();
    }
  });

  it("a remembered visitor Redis no longer holds is loaded from the database on the flush's connection", async () => {
    const client = new Redis(redis.url);
    const loads: string[] = [];
    const connection = () => {
      loads.push("db");
      return Promise.resolve(first.app.db);
    };
    try {
      const mine = new SharedSessions(client);
      await mine.assign(connection, [page("gone", 0)]);
      loads.length = 0;
      // The key expired; the database holds a later session (from a flush of another process).
      await client.del(visitorKey("p_known", "gone"));
      await first.app.db
        .insertInto("event_visitors")
        .values({
          project_id: "p_known",
          visitor_id: "gone",
          first_seen: T0,
          first_channel: "direct",
          first_source: null,
          first_landing_page: "/",
          session_id: "ses_db",
          session_started: T0 + 40 * MIN,
          session_channel: "direct",
          session_source: null,
          session_landing_page: "/",
          last_seen: T0 + 40 * MIN,
        })
        .execute();
      const r = await mine.assign(connection, [page("gone", 45)]);
      expect(loads).toEqual(["db"]);
      expect(r.infos[0]).toMatchObject({ sessionId: "ses_db", started: false });
    } finally {
      client.disconnect();
    }
  });
});
