import { Redis } from "ioredis";

/**
 * The benches' Redis: BENCH_REDIS_URL (a redis:// URL, or a Unix socket path such as
 * /tmp/redis.sock), in database 1 unless it names one (database 0 is left alone).
 */
export function benchRedisUrl(): string {
  const url = process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379";
  if (url.startsWith("/")) return /[?&]db=/.test(url) ? url : `${url}${url.includes("?") ? "&" : "?"}db=1`;
  const u = new URL(url);
  if (u.pathname === "" || u.pathname === "/") u.pathname = "/1";
  return u.toString();
}

/** Why the bench cannot use Redis at `url`, or null when it answers PING. */
export async function redisUnreachable(url: string): Promise<string | null> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    await redis.ping();
    return null;
  } catch (err) {
    return `no Redis at ${url} (${(err as Error).message})`;
  } finally {
    redis.disconnect();
  }
}

/** Deletes the rate-limit counters the servers made in the bench's Redis database (no flush). */
export async function deleteRateLimitKeys(url: string): Promise<number> {
  const redis = new Redis(url);
  let deleted = 0;
  try {
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", "fastify-rate-limit-*", "COUNT", 1000);
      cursor = next;
      if (keys.length) deleted += await redis.del(...keys);
    } while (cursor !== "0");
  } finally {
    redis.disconnect();
  }
  return deleted;
}
