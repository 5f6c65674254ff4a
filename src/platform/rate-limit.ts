import rateLimit from "@fastify/rate-limit";
import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from "fastify";
import { Redis } from "ioredis";
import { AppError } from "./errors.js";

export interface LimitSpec {
  /** Requests per window; 0 disables the limit. */
  max: number;
  windowMs?: number;
  /** Separates counters of different limits that share a caller key. */
  name: string;
  /** Defaults to `req.rateLimitKey` set by authentication. */
  key?: (req: FastifyRequest) => string | Promise<string>;
}

/** Registers @fastify/rate-limit (Redis store when REDIS_URL is set) without a global limit. */
export async function registerRateLimit(app: FastifyInstance, redisUrl?: string): Promise<Redis | undefined> {
  const redis = redisUrl
    ? new Redis(redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false })
    : undefined;
  await app.register(rateLimit, {
    global: false,
    redis,
    // The limit counts requests; it must never turn a store outage into an outage of the API.
    skipOnError: true,
  });
  return redis;
}

/** A preHandler enforcing one limit: 429 RATE_LIMITED with Retry-After and X-RateLimit-* headers. */
export function createLimit(app: FastifyInstance, spec: LimitSpec): preHandlerAsyncHookHandler | null {
  if (spec.max <= 0) return null;
  return app.rateLimit({
    max: spec.max,
    timeWindow: spec.windowMs ?? 60_000,
    keyGenerator: async (req) =>
      `${spec.name}:${spec.key ? await spec.key(req) : (req.rateLimitKey ?? req.ip)}`,
    errorResponseBuilder: (_req, ctx) => {
      const err = new AppError(
        "RATE_LIMITED",
        `rate limit exceeded: ${ctx.max} requests per minute; retry in ${ctx.after}`,
      );
      (err as unknown as { statusCode: number }).statusCode = 429;
      return err as unknown as object;
    },
  }) as preHandlerAsyncHookHandler;
}
