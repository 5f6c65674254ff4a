import { fnv1a32 } from "./bucketing.js";
import {
  betaDraw,
  chanceToBeat,
  differenceInterval,
  mulberry32,
  holmAdjust,
  srmPValue,
  twoProportionPValue,
} from "./stats.js";

export interface VariantCounts {
  name: string;
  exposures: number;
  conversions: number;
}

export interface VariantResult extends VariantCounts {
  conversionRate: number;
  /** Relative uplift vs control ((pB − pA) / pA); null for the control or when pA is 0. */
  uplift: number | null;
  /** 95% interval of the relative uplift (Wald interval of pB − pA divided by pA). */
  upliftInterval: [number, number] | null;
  /** Bayesian P(variant rate > control rate), Beta(1,1) prior; null for the control. */
  chanceToBeatControl: number | null;
  /** Two-sided p-value of the pooled two-proportion z-test vs control; null for the control. */
  pValue: number | null;
  /**
   * `pValue` adjusted for the number of variants compared with control (Holm–Bonferroni); equal
   * to it with one variant. Null for the control.
   */
  adjustedPValue: number | null;
}

export interface ExperimentResults {
  control: string;
  variants: VariantResult[];
  totalExposures: number;
  totalConversions: number;
  /** Sample ratio mismatch: chi-square of exposures vs the configured weights (not for bandits). */
  srm: { checked: boolean; pValue: number | null; mismatch: boolean };
}

export const SRM_THRESHOLD = 0.001;
export const WIN_THRESHOLD = 0.95;
export const LOSE_THRESHOLD = 0.05;

/** Results from the incremental counters; variant 0 is the control. */
export function computeResults(
  counts: VariantCounts[],
  weights: readonly number[],
  mode: string,
): { results: ExperimentResults; confidence: number } {
  const control = counts[0]!;
  const pA = control.exposures > 0 ? control.conversions / control.exposures : 0;
  const variants: VariantResult[] = counts.map((v, i) => {
    const rate = v.exposures > 0 ? v.conversions / v.exposures : 0;
    if (i === 0)
      return {
        ...v,
        conversionRate: rate,
        uplift: null,
        upliftInterval: null,
        chanceToBeatControl: null,
        pValue: null,
        adjustedPValue: null,
      };
    const diff = differenceInterval(control.exposures, control.conversions, v.exposures, v.conversions);
    const relative = pA > 0 && control.exposures > 0 && v.exposures > 0;
    return {
      ...v,
      conversionRate: rate,
      uplift: relative ? (rate - pA) / pA : null,
      upliftInterval: relative && diff ? [diff[0] / pA, diff[1] / pA] : null,
      chanceToBeatControl: chanceToBeat(control, v),
      pValue: twoProportionPValue(control.exposures, control.conversions, v.exposures, v.conversions),
      adjustedPValue: null,
    };
  });
  const adjusted = holmAdjust(variants.map((v) => v.pValue));
  variants.forEach((v, i) => {
    v.adjustedPValue = adjusted[i]!;
  });
  const checked = mode !== "bandit";
  const srmP = checked
    ? srmPValue(
        counts.map((c) => c.exposures),
        weights,
      )
    : null;
  const totalExposures = counts.reduce((s, c) => s + c.exposures, 0);
  // Before any exposure the posterior chance is the prior's 0.5; report 0 (no evidence) instead.
  const confidence =
    totalExposures === 0 ? 0 : Math.max(...variants.slice(1).map((v) => v.chanceToBeatControl ?? 0));
  return {
    results: {
      control: control.name,
      variants,
      totalExposures,
      totalConversions: counts.reduce((s, c) => s + c.conversions, 0),
      srm: { checked, pValue: srmP, mismatch: srmP !== null && srmP < SRM_THRESHOLD },
    },
    confidence,
  };
}

/**
 * The auto-complete rule: every variant has at least `minSample` exposures, no sample ratio
 * mismatch, and the best variant's chance to beat control is ≥ 0.95 (it wins) or ≤ 0.05 (every
 * variant is ≤ 0.05, so the control wins). Returns the winner's index, or null to keep running.
 */
export function decideWinner(results: ExperimentResults, minSample: number): number | null {
  if (results.srm.mismatch) return null;
  if (results.variants.some((v) => v.exposures < minSample)) return null;
  let best = 1;
  for (let i = 2; i < results.variants.length; i++) {
    if ((results.variants[i]!.chanceToBeatControl ?? 0) > (results.variants[best]!.chanceToBeatControl ?? 0))
      best = i;
  }
  const chance = results.variants[best]!.chanceToBeatControl ?? 0;
  if (chance >= WIN_THRESHOLD) return best;
  if (chance <= LOSE_THRESHOLD) return 0;
  return null;
}

export interface ThompsonOptions {
  draws?: number;
  floor?: number;
  seed?: number;
}

/**
 * Thompson sampling allocation: each arm's weight is the share of joint posterior draws in which it
 * has the highest rate, then mixed with a floor so no arm starves: w = floor + (1 − k·floor)·share.
 */
export function thompsonWeights(counts: VariantCounts[], opts: ThompsonOptions = {}): number[] {
  const draws = opts.draws ?? 10_000;
  const floor = opts.floor ?? 0.01;
  const seed = opts.seed ?? fnv1a32(counts.map((c) => `${c.name}:${c.exposures}:${c.conversions}`).join("|"));
  const rand = mulberry32(seed);
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
