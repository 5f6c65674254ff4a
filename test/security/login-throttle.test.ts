import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedisServer, type RedisServer } from "../helpers/redis-server.js";
import { type TestApp, startTestApp } from "../helpers/app.js";
import { parseTrustProxy } from "../../src/config.js";

/**
 * Issue 31, item 2: sign-in throttling holds whatever address the attempts claim. Before,
 * `trustProxy: true` believed X-Forwarded-For from anyone: rotating it allowed 120 wrong passwords
 * in a row, and the per-account cap never applied.
 */
const PASSWORD = "correct horse battery";
const rotating = (i: number) => `198.51.${Math.floor(i / 250)}.${(i % 250) + 1}`;

function loginWith(t: TestApp) {
  return (email: string, password: string, headers: Record<string, string> = {}, remoteAddress?: string) =>
    t.app.inject({
      method: "POST",
      url: "/api/auth/login",
      headers,
      remoteAddress,
      payload: { email, password },
    });
}

async function attack(t: TestApp, email: string, n = 120) {
  const login = loginWith(t);
  const statuses: number[] = [];
  for (let i = 0; i < n; i++)
    statuses.push((await login(email, `guess ${i}`, { "x-forwarded-for": rotating(i) })).statusCode);
  return {
    tried: statuses.filter((s) => s === 401).length,
    refused: statuses.filter((s) => s === 429).length,
  };
}

describe("TRUST_PROXY", () => {
  it("is off by default and takes Fastify's forms", () => {
    expect(parseTrustProxy(undefined)).toBe(false);
    expect(parseTrustProxy("")).toBe(false);
    expect(parseTrustProxy("false")).toBe(false);
    expect(parseTrustProxy("true")).toBe(true);
    expect(parseTrustProxy("2")).toBe(2);
    expect(parseTrustProxy("10.0.0.0/8, 127.0.0.1")).toBe("10.0.0.0/8, 127.0.0.1");
  });
});

describe("by default, a claimed address is not the client's", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it("120 wrong passwords rotating X-Forwarded-For: 5 are tried, the rest refused", async () => {
    const a = await t.tenant();
    const { tried, refused } = await attack(t, a.admin.email);
    expect(tried).toBe(5);
    expect(refused).toBe(115);
  });

  it("a burst of concurrent guesses cannot slip past the count", async () => {
    const a = await t.tenant();
    const login = loginWith(t);
    // From an address of its own (the attack above used up 127.0.0.1's allowance across accounts).
    const all = await Promise.all(
      Array.from({ length: 40 }, (_, i) => login(a.admin.email, `burst ${i}`, {}, "192.0.2.33")),
    );
    expect(all.filter((r) => r.statusCode === 401)).toHaveLength(5);
    expect(all.filter((r) => r.statusCode === 429)).toHaveLength(35);
  });
});

describe("behind a trusted proxy, an account is held to a trickle whatever the address", () => {
  let t: TestApp;
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
    t = await startTestApp({ trustProxy: true, redisUrl: redis.url });
  }, 30_000);
  afterAll(async () => {
    await t?.close();
    await redis?.stop();
  });

  it("120 wrong passwords from 120 addresses: a handful are tried, and the user's own address still signs in", async () => {
    const a = await t.tenant();
    const login = loginWith(t);
    // The user signed in from home before: that address is known to the account.
    expect((await login(a.admin.email, PASSWORD, { "x-forwarded-for": "192.0.2.50" })).statusCode).toBe(200);
    const { tried, refused } = await attack(t, a.admin.email);
    // 5 free, then a delay of 1 s, 2 s, 4 s … after each: a fast run gets one or two more.
    expect(tried).toBeGreaterThanOrEqual(5);
    expect(tried).toBeLessThanOrEqual(8);
    expect(refused).toBe(120 - tried);
    expect((await login(a.admin.email, PASSWORD, { "x-forwarded-for": "192.0.2.50" })).statusCode).toBe(200);
    // A new address waits, but never long: at most the cap of a minute. One more wrong password
    // first, so the delay runs from now however long the attack took on a loaded machine.
    const more = await login(a.admin.email, "wrong", { "x-forwarded-for": "192.0.2.76" });
    expect([401, 429]).toContain(more.statusCode);
    const fresh = await login(a.admin.email, PASSWORD, { "x-forwarded-for": "192.0.2.77" });
    expect(fresh.statusCode).toBe(429);
    expect(Number(fresh.headers["retry-after"])).toBeLessThanOrEqual(60);
  }, 60_000);

  it("the count is shared through Redis by every process", async () => {
    const a = await t.tenant();
    const other = await startTestApp({ trustProxy: true, redisUrl: redis.url });
    try {
      const one = loginWith(t);
      const two = loginWith(other);
      for (let i = 0; i < 3; i++)
        expect((await one(a.admin.email, "x", { "x-forwarded-for": "192.0.2.9" })).statusCode).toBe(401);
      for (let i = 0; i < 2; i++)
        expect((await two(a.admin.email, "x", { "x-forwarded-for": "192.0.2.9" })).statusCode).toBe(401);
      expect((await two(a.admin.email, PASSWORD, { "x-forwarded-for": "192.0.2.9" })).statusCode).toBe(429);
      expect((await one(a.admin.email, PASSWORD, { "x-forwarded-for": "192.0.2.9" })).statusCode).toBe(429);
    } finally {
      await other.close();
    }
  });
});
