import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { type TestApp, startTestApp } from "../helpers/app.js";
import { waitFor } from "../helpers/net.js";
import { type RedisServer, startRedisServer } from "../helpers/redis-server.js";

// A real Redis server (Debian's redis-server, installed by .ci/run) started by this test.

let redis: RedisServer;
let t: TestApp;

beforeAll(async () => {
  redis = await startRedisServer();
  t = await startTestApp({ redisUrl: redis.url });
});
afterAll(async () => {
  await t?.close();
  await redis?.stop();
});

describe("rate limits with the Redis store", () => {
  it("two API nodes sharing Redis share one counter per key", async () => {
    const a = await t.tenant();
    // A second node: another app instance over the same database and the same Redis.
    const node2 = await buildApp(t.config, { handle: t.app.dbHandle, logger: false });
    await node2.ready();
    try {
      for (let i = 0; i < 60; i++)
        expect((await a.post("/api/beliefs", { statement: `n1-${i}` })).status).toBe(201);
      for (let i = 0; i < 40; i++) {
        const res = await node2.inject({
          method: "POST",
          url: "/api/beliefs",
          headers: { "content-type": "application/json", "x-api-key": a.apiKey },
          payload: { statement: `n2-${i}` },
        });
        expect(res.statusCode).toBe(201);
      }
      const over = await node2.inject({
        method: "POST",
        url: "/api/beliefs",
        headers: { "content-type": "application/json", "x-api-key": a.apiKey },
        payload: { statement: "101st" },
      });
      expect(over.statusCode).toBe(429);
      expect(over.headers["retry-after"]).toBeDefined();
      expect((await a.post("/api/beliefs", { statement: "also over" })).status).toBe(429);
    } finally {
      await node2.close();
    }
  });
});

describe("a Redis outage", () => {
  it("is reported by /healthz and /metrics, logged once, and leaves the API serving", async () => {
    let own = await startRedisServer();
    const lines: string[] = [];
    const node = await buildApp(
      { ...t.config, redisUrl: own.url },
      {
        handle: t.app.dbHandle,
        logger: {
          level: "info",
          stream: new Writable({
            write(chunk, _enc, cb) {
              lines.push(String(chunk));
              cb();
            },
          }),
        } as never,
      },
    );
    const stderr: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      stderr.push(String(chunk));
      return write(chunk, ...rest);
    }) as typeof process.stderr.write;
    try {
      await node.ready();
      const health = async () => (await node.inject({ url: "/healthz" })).json();
      const gauge = async () =>
        /^lift_redis_up (\d)$/m.exec((await node.inject({ url: "/metrics" })).body)?.[1];
      await waitFor(async () => (await health()).status === "ok", 10_000);
      expect(await gauge()).toBe("1");

      await own.stop();
      await waitFor(async () => (await health()).status === "degraded", 10_000);
      const a = await t.tenant();
      for (let i = 0; i < 20; i++) {
        const res = await node.inject({ url: "/api/goals", headers: { "x-api-key": a.apiKey } });
        expect(res.statusCode).toBe(200); // rate limits fail open
      }
      const down = await node.inject({ url: "/healthz" });
      expect(down.statusCode).toBe(200);
      expect(down.json()).toEqual({ status: "degraded", redis: "unavailable" });
      expect(await gauge()).toBe("0");
      await waitFor(() => lines.some((l) => l.includes("redis is unreachable")), 5_000);
      expect(lines.filter((l) => l.includes("redis is unreachable"))).toHaveLength(1);
      expect(stderr.filter((l) => l.includes("ECONNREFUSED"))).toEqual([]);

      own = await startRedisServer(own.port);
      await waitFor(async () => (await health()).status === "ok", 15_000);
      expect(await gauge()).toBe("1");
      await waitFor(() => lines.some((l) => l.includes("redis is reachable again")), 5_000);
      expect(lines.filter((l) => l.includes("redis is reachable again"))).toHaveLength(1);
      expect(lines.filter((l) => l.includes("redis is unreachable"))).toHaveLength(1);
    } finally {
      process.stderr.write = write;
      await node.close();
      await own.stop();
    }
  }, 60_000);
});
