import type { Redis } from "ioredis";
import { AppError } from "./errors.js";

/**
 * Failed sign-ins are counted per (client address, account), per client address and per account,
 * each in a fixed 15-minute window. The limits, and why they cannot lock a user out for good:
 * - address + account: 5 failures → that address waits for that account. A success clears it.
 * - address: 50 failures over any accounts → that address waits (credential stuffing).
 * - account: 100 failures from all addresses → every address that has already failed for the
 *   account waits; an address with no failure for it (the user, elsewhere) still signs in.
 * A 429 says when to retry (Retry-After). Counters live in Redis when configured (shared by every
 * process), else in this process. A Redis outage lets sign-ins through (as the rate limits do).
 */
export interface LoginLimits {
  perAddressAndAccount: number;
  perAddress: number;
  perAccount: number;
  windowMs: number;
}
export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  perAddressAndAccount: 5,
  perAddress: 50,
  perAccount: 100,
  windowMs: 15 * 60_000,
};

interface Counter {
  count: number;
  /** ms until the window ends */
  ttlMs: number;
}

interface FailureStore {
  read(keys: string[]): Promise<Counter[]>;
  add(keys: string[], windowMs: number): Promise<void>;
  clear(key: string): Promise<void>;
}

function memoryStore(): FailureStore {
  const counters = new Map<string, { count: number; until: number }>();
  const live = (key: string) => {
    const c = counters.get(key);
    if (c && c.until <= Date.now()) counters.delete(key);
    return counters.get(key);
  };
  return {
    async read(keys) {
      return keys.map((k) => {
        const c = live(k);
        return c ? { count: c.count, ttlMs: c.until - Date.now() } : { count: 0, ttlMs: 0 };
      });
    },
    async add(keys, windowMs) {
      if (counters.size > 100_000) for (const k of counters.keys()) live(k);
      for (const k of keys) {
        const c = live(k);
        if (c) c.count++;
        else counters.set(k, { count: 1, until: Date.now() + windowMs });
      }
    },
    async clear(key) {
      counters.delete(key);
    },
  };
}

function redisStore(redis: Redis): FailureStore {
  return {
    async read(keys) {
      const pipe = redis.multi();
      for (const k of keys) pipe.get(k).pttl(k);
      const res = (await pipe.exec()) ?? [];
      return keys.map((_, i) => ({
        count: Number(res[2 * i]?.[1] ?? 0),
        ttlMs: Math.max(0, Number(res[2 * i + 1]?.[1] ?? 0)),
      }));
    },
    async add(keys, windowMs) {
      const pipe = redis.multi();
      for (const k of keys) pipe.incr(k).pexpire(k, windowMs, "NX");
      await pipe.exec();
    },
    async clear(key) {
      await redis.del(key);
    },
  };
}

export class LoginThrottle {
  private store: FailureStore;

  constructor(
    redis: Redis | undefined,
    private limits: LoginLimits = DEFAULT_LOGIN_LIMITS,
  ) {
    this.store = redis ? redisStore(redis) : memoryStore();
  }

  private keys(address: string, email: string) {
    const account = email.trim().toLowerCase();
    return [
      `login:fail:pair:${address}:${account}`,
      `login:fail:addr:${address}`,
      `login:fail:acct:${account}`,
    ];
  }

  /** Throws 429 with Retry-After when this address may not try this account now. */
  async check(address: string, email: string): Promise<void> {
    let counters: Counter[];
    try {
      counters = await this.store.read(this.keys(address, email));
    } catch {
      return; // the store is down: fail open
    }
    const [pair, addr, acct] = counters as [Counter, Counter, Counter];
    const l = this.limits;
    const waitMs =
      pair.count >= l.perAddressAndAccount
        ? pair.ttlMs
        : addr.count >= l.perAddress
          ? addr.ttlMs
          : acct.count >= l.perAccount && pair.count > 0
            ? Math.max(pair.ttlMs, acct.ttlMs)
            : 0;
    if (waitMs > 0) {
      const seconds = Math.max(1, Math.ceil(waitMs / 1000));
      throw new AppError("RATE_LIMITED", `too many failed sign-ins: try again in ${seconds} seconds`, {
        "retry-after": String(seconds),
      });
    }
  }

  async failed(address: string, email: string): Promise<void> {
    await this.store.add(this.keys(address, email), this.limits.windowMs).catch(() => {});
  }

  async succeeded(address: string, email: string): Promise<void> {
    await this.store.clear(this.keys(address, email)[0]!).catch(() => {});
  }
}
