/** Attribution models: how one conversion's credit is split over its touchpoints. */
export const ATTRIBUTION_MODELS = [
  "first_touch",
  "last_touch",
  "linear",
  "position_based",
  "time_decay",
] as const;
export type AttributionModel = (typeof ATTRIBUTION_MODELS)[number];

export interface Touch {
  channel: string;
  /** epoch ms */
  ts: number;
}

const DAY_MS = 86_400_000;
export const TIME_DECAY_HALF_LIFE_MS = 7 * DAY_MS;
/**
 * Credits are whole multiples of 2^-40. Every partial sum of such numbers not above 1 is exactly
 * representable as a double, so a conversion's credits sum to exactly 1 in any order.
 */
const UNIT = 2 ** 40;

/** Raw weights per touch (touches ordered by time), before normalisation. */
function rawWeights(model: AttributionModel, touches: Touch[], conversionTs: number): number[] {
  const n = touches.length;
  switch (model) {
    case "first_touch":
      return touches.map((_, i) => (i === 0 ? 1 : 0));
    case "last_touch":
      return touches.map((_, i) => (i === n - 1 ? 1 : 0));
    case "linear":
      return touches.map(() => 1 / n);
    case "position_based":
      // 40/20/40: first and last 40% each, the middle touches share 20%; 1 touch 100%, 2 touches 50/50.
      if (n === 1) return [1];
      if (n === 2) return [0.5, 0.5];
      return touches.map((_, i) => (i === 0 || i === n - 1 ? 0.4 : 0.2 / (n - 2)));
    case "time_decay":
      return touches.map((t) => 2 ** (-Math.max(0, conversionTs - t.ts) / TIME_DECAY_HALF_LIFE_MS));
  }
}

/**
 * Credit per touch for one conversion; sums to exactly 1. Touches are sorted by time here.
 * Rounding to the 2^-40 grid uses largest remainders, so no touch moves by more than one unit.
 */
export function creditTouches(model: AttributionModel, touches: Touch[], conversionTs: number): number[] {
  if (touches.length === 0) return [];
  const sorted = touches.map((t, i) => ({ t, i })).sort((a, b) => a.t.ts - b.t.ts || a.i - b.i);
  const raw = rawWeights(
    model,
    sorted.map((s) => s.t),
    conversionTs,
  );
  const total = raw.reduce((a, b) => a + b, 0);
  const exact = raw.map((w) => (w / total) * UNIT);
  const units = exact.map(Math.floor);
  let missing = UNIT - units.reduce((a, b) => a + b, 0);
  const byRemainder = exact.map((e, i) => ({ i, r: e - units[i]! })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (let k = 0; missing > 0; k = (k + 1) % byRemainder.length, missing--) units[byRemainder[k]!.i]!++;
  const credits = new Array<number>(touches.length);
  sorted.forEach((s, k) => {
    credits[s.i] = units[k]! / UNIT;
  });
  return credits;
}

/** Credit per channel for one conversion (sums to exactly 1). */
export function creditChannels(
  model: AttributionModel,
  touches: Touch[],
  conversionTs: number,
): Map<string, number> {
  const credits = creditTouches(model, touches, conversionTs);
  const out = new Map<string, number>();
  touches.forEach((t, i) => {
    out.set(t.channel, (out.get(t.channel) ?? 0) + credits[i]!);
  });
  return out;
}
