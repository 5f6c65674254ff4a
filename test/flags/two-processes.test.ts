import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { clearCache, GrowthBook, setPolyfills } from "@growthbook/growthbook";
import { EventSource } from "eventsource";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { until } from "../../src/modules/flags/flags.testing.js";
import { ADMIN, call, printedApiKey } from "../hardening/lift-process.js";
import { startPgCluster } from "../helpers/pg-cluster.js";
import { type RedisServer, startRedisServer } from "../helpers/redis-server.js";
import { killAll, type Proc, printed, startLift, stopAll } from "../platform/two-processes.harness.js";

/**
 * Issue 32: two API processes (A, B) over one PostgreSQL and one Redis, started by this test. A
 * change made on either process reaches a streaming GrowthBook SDK connected to the other in
 * under a second (Redis pub/sub tells B that A changed something, and B pushes the payload).
 */
setPolyfills({ EventSource });

let cluster: Awaited<ReturnType<typeof startPgCluster>>;
let redis: RedisServer;
let A: Proc;
let B: Proc;
let apiKey: string;
let publicKey: string;
const dir = mkdtempSync(path.join(tmpdir(), "lift-flags-two-"));

beforeAll(async () => {
  process.once("exit", killAll);
  [cluster, redis] = await Promise.all([startPgCluster(), startRedisServer()]);
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query("CREATE DATABASE flags");
  await admin.end();
  const env = {
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    DATA_DIR: dir,
    SECRET_KEY: randomBytes(32).toString("base64url"),
    DATABASE_URL: cluster.url.replace(/\/postgres$/, "/flags"),
    REDIS_URL: redis.url,
    RATE_LIMIT_EVENTS: "0",
  };
  A = await startLift("A", env);
  B = await startLift("B", env);
  apiKey = printedApiKey(A.output());
  publicKey = printed(A.output(), "public key");
}, 120_000);

// Closes the SDK's streams (its module keeps them across instances).
afterEach(async () => clearCache());
afterAll(async () => {
  process.removeListener("exit", killAll);
  await stopAll();
  await redis?.stop();
  await cluster?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A streaming SDK on `p`, whose stream is known to be live (a first change has reached it). */
async function streamingSdk(p: Proc, attributes: Record<string, unknown>) {
  const gb = new GrowthBook({ apiHost: p.base, clientKey: publicKey, attributes });
  const init = await gb.init({ streaming: true, timeout: 5000 });
  expect(init.success).toBe(true);
  return gb;
}

/** Milliseconds from the start of `change` until `seen()` holds. */
async function timed(change: () => Promise<{ status: number }>, seen: () => boolean, what: string) {
  const started = performance.now();
  const res = await change();
  expect(res.status).toBeLessThan(300);
  await until(seen, what, 5000, 2);
  return performance.now() - started;
}

describe("flags on two processes over PostgreSQL + Redis", () => {
  it("a PATCH on one process reaches a streaming SDK on the other in under 1 s, both ways", async () => {
    const created = await call(A.base, "POST", "/api/flags", {
      key: apiKey,
      body: { key: "two-proc", valueType: "string", defaultValue: "v0" },
    });
    expect(created.status).toBe(201);
    const onB = await streamingSdk(B, { id: "u1" });
    expect(onB.getFeatureValue("two-proc", "?")).toBe("v0");
    const patch = (p: Proc, value: string) => () =>
      call(p.base, "PATCH", "/api/flags/two-proc", { key: apiKey, body: { defaultValue: value } });
    // Warm-up: the SDK opens its stream after its first fetch; this change proves it is live.
    await timed(patch(A, "v1"), () => onB.getFeatureValue("two-proc", "?") === "v1", "the warm-up change");

    const aToB: number[] = [];
    for (const value of ["v2", "v3", "v4"])
      aToB.push(await timed(patch(A, value), () => onB.getFeatureValue("two-proc", "?") === value, value));
    expect(Math.max(...aToB)).toBeLessThan(1000);

    const onA = await streamingSdk(A, { id: "u1" });
    await timed(
      patch(B, "w1"),
      () => onA.getFeatureValue("two-proc", "?") === "w1",
      "the warm-up change on A",
    );
    const bToA = await timed(patch(B, "w2"), () => onA.getFeatureValue("two-proc", "?") === "w2", "w2");
    expect(bToA).toBeLessThan(1000);
    // The kill switch, thrown on B, reaches the SDK on A.
    await call(B.base, "PATCH", "/api/flags/two-proc", {
      key: apiKey,
      body: { rules: [{ type: "force", value: "on" }] },
    });
    await until(() => onA.getFeatureValue("two-proc", "?") === "on", "the rule on A");
    const killed = await timed(
      () => call(B.base, "PATCH", "/api/flags/two-proc", { key: apiKey, body: { enabled: false } }),
      () => onA.getFeatureValue("two-proc", "?") === "w2",
      "the kill switch",
    );
    expect(killed).toBeLessThan(1000);
    onA.destroy();
    onB.destroy();
  });

  it("a change on one process drops the other's cached payload: its next GET serves the change", async () => {
    await call(A.base, "POST", "/api/flags", {
      key: apiKey,
      body: { key: "two-plain", valueType: "string", defaultValue: "p0" },
    });
    const features = () => call(B.base, "GET", `/api/features/${publicKey}`);
    const first = (await until(async () => {
      const res = await features();
      return res.body?.features?.["two-plain"] ? res : null;
    }, "the new flag on B"))!;
    // While nothing changes, B answers the same payload (its ETag).
    const etag = first.headers.get("etag")!;
    const again = await call(B.base, "GET", `/api/features/${publicKey}`, {
      headers: { "if-none-match": etag },
    });
    expect(again.status).toBe(304);
    // Well within the cache's TTL: only the change's notice makes B rebuild.
    const started = performance.now();
    const res = await call(A.base, "PATCH", "/api/flags/two-plain", {
      key: apiKey,
      body: { defaultValue: "p1" },
    });
    expect(res.status).toBe(200);
    const changed = (await until(
      async () => {
        const r = await features();
        return r.body?.features?.["two-plain"]?.defaultValue === "p1" ? r : null;
      },
      "the change on B",
      5000,
      2,
    ))!;
    expect(performance.now() - started).toBeLessThan(1000);
    expect(changed.headers.get("etag")).not.toBe(etag);
  });

  it("an experiment started on one process reaches the other's streaming SDK (its rule starts serving)", async () => {
    const e = await call(A.base, "POST", "/api/experiments", {
      key: apiKey,
      body: { name: "Two", targetUrl: "/", variants: [{ name: "control" }, { name: "b" }] },
    });
    await call(A.base, "POST", "/api/flags", {
      key: apiKey,
      body: {
        key: "two-exp",
        valueType: "boolean",
        defaultValue: false,
        rules: [{ type: "experiment", experimentId: e.body.id, variations: [false, true] }],
      },
    });
    const onB = await streamingSdk(B, { id: "someone" });
    await timed(
      () => call(A.base, "PATCH", "/api/flags/two-exp", { key: apiKey, body: { description: "warm-up" } }),
      () =>
        onB.getFeatureValue("two-exp", true) === false &&
        onB.evalFeature("two-exp").source === "defaultValue",
      "the warm-up",
    );
    const started = await timed(
      () =>
        call(A.base, "PATCH", "/api/experiments", {
          key: apiKey,
          body: { id: e.body.id, status: "running" },
        }),
      () => onB.evalFeature("two-exp").source === "experiment",
      "the running experiment on B",
    );
    expect(started).toBeLessThan(1000);
    onB.destroy();
  });
});
