import { type ChildProcess, spawn } from "node:child_process";
import { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { type TestApp, startTestApp } from "../helpers/app.js";
import { freePort } from "../helpers/net.js";

// A real Redis server (Debian's redis-server, installed by .ci/run) started by this test.

let redis: ChildProcess;
let t: TestApp;
let redisUrl: string;
beforeAll(async () => {
  const port = await freePort();
  redis = spawn(
    "redis-server",
    ["--port", String(port), "--save", "", "--appendonly", "no", "--bind", "127.0.0.1"],
    {
      stdio: "ignore",
    },
  );
  redisUrl = `redis://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = new Socket();
      s.once("error", () => resolve(false));
      s.connect(port, "127.0.0.1", () => {
        s.destroy();
        resolve(true);
      });
    });
    if (ok) break;
    if (Date.now() > deadline) throw new Error("redis-server did not start");
    await new Promise((r) => setTimeout(r, 50));
  }
  t = await startTestApp({ redisUrl });
});
afterAll(async () => {
  await t?.close();
  redis?.kill("SIGKILL");
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
