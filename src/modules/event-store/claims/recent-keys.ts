/**
 * Keys claimed within a time window, in memory: the lookup side of message dedup on SQLite, where
 * one process owns the database (claims-store.ts). An open-addressing table of 64-bit key hashes and
 * claim times (seconds) in one typed array, a slot's three numbers side by side (one cache miss a
 * lookup): 12 bytes a slot, at most 60% full (20–40 bytes a key), so millions of keys cost tens of
 * megabytes and no object per key for the garbage collector to walk. A key string is hashed, never
 * stored.
 *
 * Two different keys with the same 64-bit hash would count as one: with n keys in the window the
 * chance that any two collide is about n² / 2^65 (10M keys a day: once in ~10,000 years).
 */

/** claim times are seconds from here, so they fit a signed 32-bit number until 2088 */
const EPOCH_S = 1_577_836_800; // 2020-01-01
const EMPTY = 0;
/** a slot whose claim was taken back: reusable, and not the end of a probe chain */
const FREED = 1;
const MIN_CAPACITY = 1024;
/** linear probing stays short up to here; a rehash leaves the table half as full */
const MAX_LOAD = 0.6;

/** Seconds since EPOCH_S of an epoch-milliseconds time (always above FREED). */
export const keyClock = (ms: number): number => Math.max(2, Math.floor(ms / 1000) - EPOCH_S);

/** numbers per slot: hash lane 1, hash lane 2, claim time */
const W = 3;

export class RecentKeys {
  private slots: Int32Array;
  private mask: number;
  /** slots not EMPTY (live, expired or freed): what probe chains run over */
  private used = 0;
  private a = 0;
  private b = 0;
  /** the last scope hashed and the lanes after it: a flush's keys share a few projects */
  private scope = "";
  private s1 = 0;
  private s2 = 0;

  constructor(
    /** seconds a claim holds */
    private windowS: number,
    capacity = MIN_CAPACITY,
  ) {
    const n = 2 ** Math.ceil(Math.log2(Math.max(MIN_CAPACITY, capacity)));
    this.slots = new Int32Array(n * W);
    this.mask = n - 1;
  }

  /** slots in the table (memory: 12 bytes each) */
  get capacity(): number {
    return this.mask + 1;
  }

  /**
   * Claims the key (`scope`, `id`) at `now` (keyClock): true when it was not claimed within the
   * window before (it is now), false for a duplicate. A claim older than the window is renewed.
   */
  claim(scope: string, id: string, now: number): boolean {
    this.hash(scope, id);
    const { a, b, slots } = this;
    const stale = now - this.windowS;
    let i = a & this.mask;
    let reuse = -1;
    for (;;) {
      const t = slots[i * W + 2]!;
      if (t === EMPTY) break;
      if (slots[i * W] === a && slots[i * W + 1] === b) {
        if (t > stale) return false;
        slots[i * W + 2] = now;
        return true;
      }
      if (reuse < 0 && t <= stale) reuse = i;
      i = (i + 1) & this.mask;
    }
    if (reuse >= 0) i = reuse;
    else this.used++;
    slots[i * W] = a;
    slots[i * W + 1] = b;
    slots[i * W + 2] = now;
    if (this.used > this.capacity * MAX_LOAD) this.rehash(now);
    return true;
  }

  /** Takes back a claim of the key (its transaction rolled back). */
  release(scope: string, id: string): void {
    this.hash(scope, id);
    const { a, b, slots } = this;
    for (let i = a & this.mask; slots[i * W + 2] !== EMPTY; i = (i + 1) & this.mask) {
      if (slots[i * W] === a && slots[i * W + 1] === b) {
        slots[i * W + 2] = FREED;
        return;
      }
    }
  }

  /** Drops expired claims, shrinking the table when they were most of it. */
  sweep(now: number): void {
    this.rehash(now);
  }

  /** Live claims at `now`. */
  size(now: number): number {
    let n = 0;
    const stale = now - this.windowS;
    for (let i = 2; i < this.slots.length; i += W) if (this.slots[i]! > stale) n++;
    return n;
  }

  /** Rebuilds with the live claims only, at most MAX_LOAD / 2 full (at least MIN_CAPACITY slots). */
  private rehash(now: number): void {
    const stale = now - this.windowS;
    const old = this.slots;
    const n = 2 ** Math.ceil(Math.log2(Math.max(MIN_CAPACITY, (this.size(now) * 2) / MAX_LOAD)));
    this.slots = new Int32Array(n * W);
    this.mask = n - 1;
    this.used = 0;
    for (let j = 0; j < old.length; j += W) {
      if (old[j + 2]! <= stale) continue;
      let i = old[j]! & this.mask;
      while (this.slots[i * W + 2] !== EMPTY) i = (i + 1) & this.mask;
      this.slots[i * W] = old[j]!;
      this.slots[i * W + 1] = old[j + 1]!;
      this.slots[i * W + 2] = old[j + 2]!;
      this.used++;
    }
  }

  /**
   * Two 32-bit lanes over the UTF-16 units of `scope`, a separator and `id` (cyrb53's mixing), left
   * in `a` and `b`; no key string is built.
   */
  private hash(scope: string, id: string): void {
    if (scope !== this.scope || this.scope === "") {
      let h1 = 0xdeadbeef;
      let h2 = 0x41c6ce57;
      for (let i = 0; i < scope.length; i++) {
        const c = scope.charCodeAt(i);
        h1 = Math.imul(h1 ^ c, 2654435761);
        h2 = Math.imul(h2 ^ c, 1597334677);
      }
      // The separator (0x10000 is no UTF-16 unit), so ("ab", "c") and ("a", "bc") differ.
      this.s1 = Math.imul(h1 ^ 0x10000, 2654435761);
      this.s2 = Math.imul(h2 ^ 0x10000, 1597334677);
      this.scope = scope;
    }
    let h1 = this.s1;
    let h2 = this.s2;
    for (let i = 0; i < id.length; i++) {
      const c = id.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, 2654435761);
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
    h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
    h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
    h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    this.a = h1 | 0;
    this.b = h2 | 0;
  }
}
