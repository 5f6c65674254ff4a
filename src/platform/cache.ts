import { LRUCache } from "lru-cache";

/**
 * The one in-process cache: bounded (least recently used entries leave first) and, when given a
 * TTL, expiring. Values must not be null or undefined; box them (`{ project: null }`) to cache a
 * "not found".
 */
export function boundedCache<K extends {}, V extends {}>(max: number, ttlMs?: number): LRUCache<K, V> {
  return new LRUCache<K, V>(ttlMs === undefined ? { max } : { max, ttl: ttlMs });
}

/** A pure function of a string, memoized in a bounded cache (parsers on the hot path). */
export function memoize<V extends {}>(max: number, fn: (key: string) => V): (key: string) => V {
  const cache = boundedCache<string, V>(max);
  return (key) => {
    let v = cache.get(key);
    if (v === undefined) {
      v = fn(key);
      cache.set(key, v);
    }
    return v;
  };
}
