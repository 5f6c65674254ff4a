import type { Redis } from "ioredis";
import { LRUCache } from "lru-cache";
import { AppError } from "./errors.js";

/**
 * Limits counted in units (events, new leads) rather than requests: @fastify/rate-limit's stores
 * add one per request, and a batch of a thousand events is not one event. Fixed windows, as the
 * request limits: a counter's window starts with its first unit.
 *
 * A request's draws on several budgets are decided together: all are taken, or none when any
 * would go past its max, and the request gets 429 with Retry-After (the refusing budget's wait).
 * So a refused request costs nothing, and one budget's refusal never spends another's. A request
 * larger than a whole budget never fits; budgets are meant to be far above any one request.
 *
 * In Redis when configured (one script: every process sees the same counts, and two requests'
 * draws never interleave), else in this process's memory (bounded: under a flood of new keys the
 * least recently used counters go). A Redis error lets the request through, as the request
 * limits do: a store outage must not become an outage of ingest.
 */

export interface Budget {
  /** Separates the counters of different budgets that share a key. */
  name: string;
  /** Units per window; 0 or less disables the budget. */
  max: number;
  windowMs?: number;
  /** What the 429 says is limited, after the number: "events per minute for this key". */
  describe: string;
}

export interface Draw {
  budget: Budget;
  /** Whose counter: a project key, a key and an address. */
  key: string;
  units: number;
}

const WINDOW_MS = 60_000;
const MEMORY_COUNTERS = 100_000;

interface Counter {
  used: number;
  /** epoch ms the window ends */
  until: number;
}

/** ms to wait before the draw at `index` fits, or 0 when every draw was taken. */
type Store = (draws: Draw[], now: number) => Promise<{ index: number; waitMs: number } | null>;

function memoryStore(): Store {
  const counters = new LRUCache<string, Counter>({ max: MEMORY_COUNTERS });
  const live = (key: string, now: number) => {
    const c = counters.get(key);
    return c && c.until > now ? c : undefined;
  };
  return async (draws, now) => {
    for (let i = 0; i < draws.length; i++) {
      const d = draws[i]!;
      const c = live(keyOf(d), now);
      if ((c?.used ?? 0) + d.units > d.budget.max)
        return { index: i, waitMs: c ? c.until - now : (d.budget.windowMs ?? WINDOW_MS) };
    }
    for (const d of draws) {
      const key = keyOf(d);
      const c = live(key, now);
      if (c) c.used += d.units;
      else counters.set(key, { used: d.units, until: now + (d.budget.windowMs ?? WINDOW_MS) });
    }
    return null;
  };
}

// Checks every draw, then takes them all: one script, so concurrent requests are decided in turn.
const TAKE_SCRIPT = `
for i = 1, #KEYS do
  local units, max = tonumber(ARGV[3 * i - 2]), tonumber(ARGV[3 * i - 1])
  if tonumber(redis.call('GET', KEYS[i]) or '0') + units > max then
    local ttl = redis.call('PTTL', KEYS[i])
    if ttl < 0 then ttl = tonumber(ARGV[3 * i]) end
    return {i, ttl}
  end
end
for i = 1, #KEYS do
  redis.call('INCRBY', KEYS[i], ARGV[3 * i - 2])
  redis.call('PEXPIRE', KEYS[i], ARGV[3 * i], 'NX')
end
return {0, 0}`;

function redisStore(redis: Redis): Store {
  return async (draws) => {
    const args: (string | number)[] = draws.map((d) => `lift-units:${keyOf(d)}`);
    for (const d of draws) args.push(d.units, d.budget.max, d.budget.windowMs ?? WINDOW_MS);
    const [index, waitMs] = (await redis.eval(TAKE_SCRIPT, draws.length, ...args)) as [number, number];
    return index === 0 ? null : { index: index - 1, waitMs };
  };
}

const keyOf = (d: Draw) => `${d.budget.name}:${d.key}`;

export class UnitLimiter {
  private store: Store;

  constructor(redis: Redis | undefined) {
    this.store = redis ? redisStore(redis) : memoryStore();
  }

  /**
   * Takes every draw (those of a disabled budget or of no units are skipped), or none: throws
   * 429 RATE_LIMITED naming the first budget that refused, with Retry-After.
   */
  async take(draws: Draw[]): Promise<void> {
    const live = draws.filter((d) => d.units > 0 && d.budget.max > 0);
    if (live.length === 0) return;
    let refused: { index: number; waitMs: number } | null;
    try {
      refused = await this.store(live, Date.now());
    } catch {
      return; // the store is down: fail open, as the request limits do
    }
    if (!refused) return;
    const { budget } = live[refused.index]!;
    const seconds = Math.max(1, Math.ceil(refused.waitMs / 1000));
    throw new AppError(
      "RATE_LIMITED",
      `rate limit exceeded: ${budget.max} ${budget.describe}; retry in ${seconds} seconds`,
      { "retry-after": String(seconds) },
    );
  }
}
