/**
 * Deterministic assignment, identical to GrowthBook's hash version 2 and bucket ranges, so a
 * visitor gets the same variant from the server, from this service's snippet and from any
 * GrowthBook SDK given the same seed. No imports: the browser snippet bundles this file as is.
 */

/** FNV-1a 32-bit over UTF-16 code units (what GrowthBook's `hashFnv32a` computes). */
export function fnv1a32(str: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < str.length; i++) {
    h ^= str.charCodeAt(i);
    // h * 16777619 mod 2^32; GrowthBook writes the same product as a sum of shifts.
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** GrowthBook hash v2: a number in [0, 1) with 4 decimals. */
export function hashV2(seed: string, value: string): number {
  return (fnv1a32(String(fnv1a32(seed + value))) % 10000) / 10000;
}

/**
 * Arm i owns [cum_i, cum_i + coverage·w_i), where cum_i sums the full weights before it: raising
 * coverage only widens each arm's range in place, so nobody moves to another arm.
 */
export function bucketRanges(weights: readonly number[], coverage: number): Array<[number, number]> {
  const c = coverage < 0 ? 0 : Math.min(coverage, 1);
  let cum = 0;
  return weights.map((w) => {
    const start = cum;
    cum += w;
    return [start, start + c * w];
  });
}

/**
 * The arm index for a visitor, or -1 when the visitor is outside the experiment's coverage.
 * `trafficSplit` is the spec's percentage (0–100); `seed` is the experiment id.
 */
export function assignVariant(
  seed: string,
  visitorId: string,
  weights: readonly number[],
  trafficSplit: number,
): number {
  if (!visitorId || weights.length === 0) return -1;
  const n = hashV2(seed, visitorId);
  const c = trafficSplit <= 0 ? 0 : trafficSplit >= 100 ? 1 : trafficSplit / 100;
  // Same arithmetic as bucketRanges, without allocating (this runs per page view).
  let cum = 0;
  for (let i = 0; i < weights.length; i++) {
    const w = weights[i]!;
    if (n >= cum && n < cum + c * w) return i;
    cum += w;
  }
  return -1;
}
