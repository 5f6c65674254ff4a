import type { FastifyBaseLogger } from "fastify";
import type { Redis } from "ioredis";
import client from "prom-client";

export interface RedisHealth {
  /** false while Redis is configured but unreachable (rate limits and sign-in counters fail open). */
  up(): boolean;
}

/**
 * Watches the shared Redis connection: one warning when it goes down (not one per request or
 * reconnect attempt), one line when it is back, and `lift_redis_up` (1/0) on /metrics.
 */
export function watchRedis(redis: Redis, log: FastifyBaseLogger, registry: client.Registry): RedisHealth {
  let up = redis.status === "ready";
  let warned = false;
  redis.on("ready", () => {
    up = true;
    if (warned) log.info("redis is reachable again: rate limits are enforced");
    warned = false;
  });
  const down = (detail: string) => {
    up = false;
    if (warned) return;
    warned = true;
    log.warn(
      { err: detail },
      "redis is unreachable: rate limits and sign-in throttling fail open until it is back",
    );
  };
  // Without an 'error' listener ioredis prints every failed reconnect and command to stderr.
  redis.on("error", (err: Error) => {
    if (redis.status !== "ready") down(err.message);
  });
  // The connection dropped and ioredis is retrying (a quit at shutdown does not retry).
  redis.on("reconnecting", () => down("connection lost"));
  redis.on("end", () => {
    up = false;
  });
  redis.on("close", () => {
    up = false;
  });
  new client.Gauge({
    name: "lift_redis_up",
    help: "1 when the Redis used for rate limits is reachable, 0 when it is configured but down",
    registers: [registry],
    collect() {
      this.set(up ? 1 : 0);
    },
  });
  return { up: () => up };
}
