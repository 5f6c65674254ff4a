import { betaDraw, mulberry32 } from "./stats.js";

/**
 * How traffic is split between variants: equally, or by Thompson sampling (a bandit), and a
 * bandit's probability of each arm being best read back from its weights. One floor serves both
 * directions, so what is read back is what was allocated.
 */

/** The split every experiment starts with. */
export const equalWeights = (n: number) => new Array(n).fill(1 / n) as number[];

/** Minimum share of traffic each bandit arm keeps, so a wrongly written-off arm can recover. */
export const BANDIT_FLOOR = 0.01;

export interface ThompsonOptions {
  /** Seeds the draws, so the same counts and seed give the same weights. */
  seed: number;
  draws?: number;
  floor?: number;
}

/**
 * Thompson sampling allocation: each arm's weight is the share of joint posterior draws in which it
 * has the highest rate, then mixed with a floor so no arm starves: w = floor + (1 − k·floor)·share.
 */
export function thompsonWeights(
  counts: readonly { exposures: number; conversions: number }[],
  opts: ThompsonOptions,
): number[] {
  const draws = opts.draws ?? 10_000;
  const floor = opts.floor ?? BANDIT_FLOOR;
  const rand = mulberry32(opts.seed);
  const wins = new Array(counts.length).fill(0);
  for (let d = 0; d < draws; d++) {
    let best = 0;
    let bestValue = -1;
    for (let i = 0; i < counts.length; i++) {
      const c = counts[i]!;
      const v = betaDraw(1 + c.conversions, 1 + c.exposures - c.conversions, rand);
      if (v > bestValue) {
        bestValue = v;
        best = i;
      }
    }
    wins[best]++;
  }
  const k = counts.length;
  const f = Math.min(floor, 1 / k);
  return wins.map((w) => f + (1 - k * f) * (w / draws));
}

/**
 * A bandit's probability that each arm is best, read back from its Thompson weights
 * (w = f + (1 − k·f)·share).
 */
export function banditProbabilityBest(weights: readonly number[], floor = BANDIT_FLOOR): number[] {
  const k = weights.length;
  const f = Math.min(floor, 1 / k);
  return weights.map((w) => (1 - k * f > 0 ? Math.max(0, (w - f) / (1 - k * f)) : 1 / k));
}
