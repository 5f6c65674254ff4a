/**
 * An experiment's results from its per-variant counters: each variant against the control
 * (variant 0) by every test in stats.ts and sequential.ts, the sample-ratio check, and secondary and guardrail
 * goals. Which variant wins, and how the outcome reads, is the experiments module's rule
 * (modules/experiments/outcome.ts); this file only measures.
 */
import {
  chanceToBeat,
  differenceInterval,
  holmAdjust,
  meanAndVariance,
  meanDifferenceIntervals,
  srmPValue,
  twoProportionPValue,
} from "./stats.js";
import { SEQUENTIAL_ALPHA, sequentialProportions } from "./sequential.js";

export interface VariantCounts {
  name: string;
  exposures: number;
  conversions: number;
  /** Σ and Σ² of each exposed visitor's revenue after exposure (0 when absent). */
  revenueSum?: number;
  revenueSumSquares?: number;
}

/** Conversions of a secondary or guardrail goal, per variant in variant order. */
export interface GoalCounts {
  goal: string;
  role: "secondary" | "guardrail";
  /** Which direction of change harms (guardrails). */
  worseWhen: "lower" | "higher";
  conversions: number[];
}

export interface SequentialResult {
  /** 1 − p/2 in the estimate's favour, p/2 against, from the always-valid p-value (adjusted). */
  chanceToBeatControl: number;
  /** Confidence sequence of the relative uplift (Bonferroni level with several challengers). */
  interval: [number, number] | null;
  /** Always-valid p-value of the difference, Holm-adjusted across challengers. */
  pValue: number;
  /** The sequential test rejects "no difference" (completion also needs the minimum sample). */
  decided: boolean;
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
  /** `pValue` adjusted for the number of variants compared with control (Holm–Bonferroni). */
  adjustedPValue: number | null;
  /** The sequential (always-valid) test vs control; null for the control. */
  sequential: SequentialResult | null;
  /** Revenue per exposed visitor; intervals vs control (Welch, delta method), null for the control. */
  revenuePerVisitor: {
    mean: number;
    interval: [number, number] | null;
    relativeInterval: [number, number] | null;
  };
}

export type GuardrailStatus = "ok" | "warning" | "failing";

export interface ExperimentResults {
  control: string;
  variants: VariantResult[];
  totalExposures: number;
  totalConversions: number;
  /** Sample ratio mismatch: chi-square of exposures vs the planned split (none for a bandit). */
  srm: { checked: boolean; pValue: number | null; mismatch: boolean };
  guardrails: { goal: string; variant: string; status: GuardrailStatus }[];
  secondary: {
    goal: string;
    variants: {
      name: string;
      conversions: number;
      conversionRate: number;
      uplift: number | null;
      pValue: number | null;
    }[];
  }[];
}

export const SRM_THRESHOLD = 0.001;

const rateOf = (c: number, n: number) => (n > 0 ? c / n : 0);

/**
 * Results from the incremental counters; variant 0 is the control. `split` is the allocation the
 * exposures should follow; null when there is none to check them against (a bandit's moves), which
 * leaves the sample-ratio check out.
 */
export function computeResults(
  counts: VariantCounts[],
  split: readonly number[] | null,
  goals: readonly GoalCounts[] = [],
): { results: ExperimentResults; confidence: number } {
  const control = counts[0]!;
  const pA = rateOf(control.conversions, control.exposures);
  const challengers = counts.length - 1;
  const revenue = (v: VariantCounts) => ({
    n: v.exposures,
    sum: v.revenueSum ?? 0,
    sumSquares: v.revenueSumSquares ?? 0,
  });
  // With several challengers the displayed sequence is at the Bonferroni level, so it is
  // simultaneous; decisions use Holm on the always-valid p-values, which is at least as strong.
  const seqAlpha = SEQUENTIAL_ALPHA / Math.max(1, challengers);
  const seq = counts.map((v, i) =>
    i === 0
      ? null
      : sequentialProportions(control.exposures, control.conversions, v.exposures, v.conversions, seqAlpha),
  );
  const seqAdjusted = holmAdjust(seq.map((s) => (s ? s.pValue : null)));
  const variants: VariantResult[] = counts.map((v, i) => {
    const rate = rateOf(v.conversions, v.exposures);
    const rpv = { mean: meanAndVariance(revenue(v)).mean, interval: null, relativeInterval: null };
    if (i === 0)
      return {
        ...v,
        conversionRate: rate,
        uplift: null,
        upliftInterval: null,
        chanceToBeatControl: null,
        pValue: null,
        adjustedPValue: null,
        sequential: null,
        revenuePerVisitor: rpv,
      };
    const diff = differenceInterval(control.exposures, control.conversions, v.exposures, v.conversions);
    const relative = pA > 0 && control.exposures > 0 && v.exposures > 0;
    const s = seq[i];
    const p = seqAdjusted[i] ?? 1;
    const revenueIntervals = meanDifferenceIntervals(revenue(control), revenue(v));
    return {
      ...v,
      conversionRate: rate,
      uplift: relative ? (rate - pA) / pA : null,
      upliftInterval: relative && diff ? [diff[0] / pA, diff[1] / pA] : null,
      chanceToBeatControl: chanceToBeat(control, v),
      pValue: twoProportionPValue(control.exposures, control.conversions, v.exposures, v.conversions),
      adjustedPValue: null,
      sequential: s
        ? {
            chanceToBeatControl: s.estimate >= 0 ? 1 - p / 2 : p / 2,
            interval: relative ? [s.interval[0] / pA, s.interval[1] / pA] : null,
            pValue: p,
            decided: p < SEQUENTIAL_ALPHA && s.estimate !== 0,
          }
        : null,
      revenuePerVisitor: {
        mean: rpv.mean,
        interval: revenueIntervals.difference,
        relativeInterval: revenueIntervals.relative,
      },
    };
  });
  const adjusted = holmAdjust(variants.map((v) => v.pValue));
  variants.forEach((v, i) => {
    v.adjustedPValue = adjusted[i]!;
  });
  const checked = split !== null;
  const srmP = checked
    ? srmPValue(
        counts.map((c) => c.exposures),
        split,
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
      guardrails: goals.filter((g) => g.role === "guardrail").flatMap((g) => guardrailStatuses(counts, g)),
      secondary: goals
        .filter((g) => g.role === "secondary")
        .map((g) => ({
          goal: g.goal,
          variants: counts.map((v, i) => {
            const c = g.conversions[i] ?? 0;
            const rate = rateOf(c, v.exposures);
            const base = rateOf(g.conversions[0] ?? 0, control.exposures);
            return {
              name: v.name,
              conversions: c,
              conversionRate: rate,
              uplift: i > 0 && base > 0 && v.exposures > 0 ? (rate - base) / base : null,
              pValue:
                i > 0 ? twoProportionPValue(control.exposures, g.conversions[0] ?? 0, v.exposures, c) : null,
            };
          }),
        })),
    },
    confidence,
  };
}

/**
 * A guardrail fails for a variant when the sequential test finds it significantly worse (in the
 * goal's harmful direction, at the uncorrected level: guardrails err towards flagging); it warns
 * when only the fixed-horizon test does.
 */
function guardrailStatuses(counts: VariantCounts[], g: GoalCounts) {
  const control = counts[0]!;
  const cA = g.conversions[0] ?? 0;
  return counts.slice(1).map((v, k) => {
    const cB = g.conversions[k + 1] ?? 0;
    const harm = (d: number) => (g.worseWhen === "lower" ? d < 0 : d > 0);
    const s = sequentialProportions(control.exposures, cA, v.exposures, cB);
    let status: GuardrailStatus = "ok";
    if (s && harm(s.estimate)) {
      if (s.pValue < SEQUENTIAL_ALPHA) status = "failing";
      else if (twoProportionPValue(control.exposures, cA, v.exposures, cB) < 0.05) status = "warning";
    }
    return { goal: g.goal, variant: v.name, status };
  });
}
