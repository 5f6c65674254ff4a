import type { Redis } from "ioredis";
import { AppError } from "./errors.js";

/**
 * Sign-in attempts are counted before the password is checked (so a burst of concurrent guesses
 * cannot all slip past a check that only counts finished failures), in fixed windows:
 * A successful attempt is taken back out of the counts.
 * - address + account: `perAddressAndAccount` attempts without a success → that address waits
 *   for that account until the window ends. A success clears it.
 * - address: `perAddress` attempts without a success over any accounts → that address waits
 *   (credential stuffing from one place).
 * - account: past `perAccount` attempts from addresses that never signed in to it, each further
 *   attempt must wait a growing delay after the previous one (base · 2^k, at most `accountDelayCapMs`),
 *   whatever address it claims. This holds an attacker with many addresses to a trickle, yet
 *   never locks the real user out for long: an address that signed in to the account in the last
 *   30 days is exempt, and anyone else waits at most the cap.
 * A 429 says when to retry (Retry-After). Counters live in Redis when configured (shared by every
 * process, updated by one script so concurrent attempts see each other), else in this process. A
 * Redis outage lets sign-ins through, as the rate limits do.
 */
export interface LoginLimits {
  perAddressAndAccount: number;
  perAddress: number;
  perAccount: number;
  windowMs: number;
  accountDelayBaseMs: number;
  accountDelayCapMs: number;
}
export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  perAddressAndAccount: 5,
  perAddress: 50,
  perAccount: 5,
  windowMs: 15 * 60_000,
  accountDelayBaseMs: 1000,
  accountDelayCapMs: 60_000,
};
const KNOWN_ADDRESS_MS = 30 * 86_400_000;

interface AttemptKeys {
  pair: string;
  addr: string;
  acct: string;
  /** epoch ms before which the account takes no attempt from an unknown address */
  next: string;
  known: string;
}

/** ms to wait before the attempt may be made (0: go ahead). */
interface AttemptStore {
  attempt(keys: AttemptKeys, limits: LoginLimits, now: number): Promise<number>;
  succeeded(keys: AttemptKeys): Promise<void>;
}

/** The delay an account imposes after `count` attempts from unknown addresses. */
const accountDelay = (count: number, l: LoginLimits) =>
  count <= l.perAccount
    ? 0
    : Math.min(l.accountDelayCapMs, l.accountDelayBaseMs * 2 ** Math.min(30, count - l.perAccount - 1));

function memoryStore(): AttemptStore {
  const counters = new Map<string, { value: number; until: number }>();
  const live = (key: string, now: number) => {
    const c = counters.get(key);
    if (c && c.until <= now) counters.delete(key);
    return counters.get(key);
  };
  const incr = (key: string, ttl: number, now: number) => {
    const c = live(key, now);
    if (c) return { value: ++c.value, ttl: c.until - now };
    counters.set(key, { value: 1, until: now + ttl });
    return { value: 1, ttl };
  };
  return {
    async attempt(k, l, now) {
      if (counters.size > 100_000) for (const key of counters.keys()) live(key, now);
      const pair = incr(k.pair, l.windowMs, now);
      const addr = incr(k.addr, l.windowMs, now);
      if (pair.value > l.perAddressAndAccount) return pair.ttl;
      if (addr.value > l.perAddress) return addr.ttl;
      if (live(k.known, now)) return 0;
      const count = incr(k.acct, l.windowMs, now).value;
      const next = live(k.next, now)?.value ?? 0;
      if (next > now) return next - now;
      const delay = accountDelay(count, l);
      if (delay > 0) counters.set(k.next, { value: now + delay, until: now + l.windowMs });
      return 0;
    },
    async succeeded(k) {
      const now = Date.now();
      counters.delete(k.pair);
      const uncount = (key: string) => {
        const c = live(key, now);
        if (c) c.value = Math.max(0, c.value - 1);
      };
      uncount(k.addr);
      if (!live(k.known, now)) uncount(k.acct);
      counters.set(k.known, { value: 1, until: now + KNOWN_ADDRESS_MS });
    },
  };
}

// One script, so two processes' attempts on one account are decided in turn.
const ATTEMPT_SCRIPT = `
local window, now = tonumber(ARGV[1]), tonumber(ARGV[2])
local function incr(key)
  local v = redis.call('INCR', key)
  redis.call('PEXPIRE', key, window, 'NX')
  return v
end
local pair, addr = incr(KEYS[1]), incr(KEYS[2])
if pair > tonumber(ARGV[3]) then return math.max(1, redis.call('PTTL', KEYS[1])) end
if addr > tonumber(ARGV[4]) then return math.max(1, redis.call('PTTL', KEYS[2])) end
if redis.call('EXISTS', KEYS[5]) == 1 then return 0 end
local count = incr(KEYS[3])
local nxt = tonumber(redis.call('GET', KEYS[4]) or '0')
if nxt > now then return nxt - now end
local free, base, cap = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
if count > free then
  local delay = math.min(cap, base * 2 ^ math.min(30, count - free - 1))
  redis.call('SET', KEYS[4], tostring(now + delay), 'PX', window)
end
return 0`;

// A success is not a failed attempt: it leaves the address's and (from an address not yet known) the
// account's counts, and makes the address known to the account.
const SUCCESS_SCRIPT = `
redis.call('DEL', KEYS[1])
local function uncount(key)
  if tonumber(redis.call('GET', key) or '0') > 0 then redis.call('DECR', key) end
end
uncount(KEYS[2])
if redis.call('EXISTS', KEYS[4]) == 0 then uncount(KEYS[3]) end
redis.call('SET', KEYS[4], '1', 'PX', ARGV[1])
return 0`;

function redisStore(redis: Redis): AttemptStore {
  return {
    async attempt(k, l, now) {
      const wait = await redis.eval(
        ATTEMPT_SCRIPT,
        5,
        k.pair,
        k.addr,
        k.acct,
        k.next,
        k.known,
        l.windowMs,
        now,
        l.perAddressAndAccount,
        l.perAddress,
        l.perAccount,
        l.accountDelayBaseMs,
        l.accountDelayCapMs,
      );
      return Number(wait);
    },
    async succeeded(k) {
      await redis.eval(SUCCESS_SCRIPT, 4, k.pair, k.addr, k.acct, k.known, KNOWN_ADDRESS_MS);
    },
  };
}

export class LoginThrottle {
  private store: AttemptStore;

  constructor(
    redis: Redis | undefined,
    private limits: LoginLimits = DEFAULT_LOGIN_LIMITS,
  ) {
    this.store = redis ? redisStore(redis) : memoryStore();
  }

  private keys(address: string, email: string): AttemptKeys {
    const account = email.trim().toLowerCase();
    return {
      pair: `login:fail:pair:${address}:${account}`,
      addr: `login:fail:addr:${address}`,
      acct: `login:fail:acct:${account}`,
      next: `login:next:acct:${account}`,
      known: `login:known:${account}:${address}`,
    };
  }

  /** Counts an attempt; throws 429 with Retry-After when this address may not try this account now. */
  async attempt(address: string, email: string): Promise<void> {
    let waitMs: number;
    try {
      waitMs = await this.store.attempt(this.keys(address, email), this.limits, Date.now());
    } catch {
      return; // the store is down: fail open
    }
    if (waitMs > 0) {
      const seconds = Math.max(1, Math.ceil(waitMs / 1000));
      throw new AppError("RATE_LIMITED", `too many failed sign-ins: try again in ${seconds} seconds`, {
        "retry-after": String(seconds),
      });
    }
  }

  /** The attempt signed in: its address is cleared for the account and known to it from now on. */
  async succeeded(address: string, email: string): Promise<void> {
    await this.store.succeeded(this.keys(address, email)).catch(() => {});
  }
}
