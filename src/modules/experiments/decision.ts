import { type ExperimentResults, LOSE_THRESHOLD, WIN_THRESHOLD } from "./results.js";

/**
 * What named an experiment's outcome: `sequential` (the always-valid test, the automatic rule),
 * `fixed-horizon` (a manual stop where only the single-look figures name a winner), `bandit` (a
 * stopped bandit's probability of being best), `manual` (stopped by hand, nothing named a winner).
 */
export type DecisionMethod = "sequential" | "fixed-horizon" | "bandit" | "manual";

/** Minimum share of traffic each bandit arm keeps, so a wrongly written-off arm can recover. */
export const BANDIT_FLOOR = 0.01;
/** A stopped bandit names the arm whose probability of being best is at least this. */
export const BANDIT_WIN_PROBABILITY = 0.95;

const ready = (results: ExperimentResults, minSample: number) =>
  !results.srm.mismatch && results.variants.every((v) => v.exposures >= minSample);

/** Variants a failing guardrail keeps from winning. */
const blockedVariants = (results: ExperimentResults) =>
  new Set(results.guardrails.filter((g) => g.status === "failing").map((g) => g.variant));

/**
 * The automatic rule: every arm has `minSample` exposures, no sample ratio mismatch, and the
 * sequential test (Holm-adjusted across challengers) finds a variant better than control — the
 * best such variant wins unless a guardrail fails for it — or finds every variant worse (the
 * control wins). Returns the winner's index, or null to keep running.
 */
export function decideWinner(results: ExperimentResults, minSample: number): number | null {
  if (!ready(results, minSample)) return null;
  const blocked = blockedVariants(results);
  let best: number | null = null;
  results.variants.forEach((v, i) => {
    if (i === 0 || !v.sequential?.decided || v.sequential.chanceToBeatControl <= 0.5 || blocked.has(v.name))
      return;
    if (best === null || v.conversionRate > results.variants[best]!.conversionRate) best = i;
  });
  if (best !== null) return best;
  const worse = results.variants
    .slice(1)
    .every((v) => v.sequential?.decided && v.sequential.chanceToBeatControl < 0.5);
  return worse ? 0 : null;
}

/**
 * The single-look rule (Lift's automatic rule before sequential testing): the best variant's
 * Bayesian chance to beat control is ≥ 0.95 (it wins) or ≤ 0.05 (the control wins). Valid for one
 * look at a planned sample; checked after every batch it names winners where nothing differs
 * (bench/experiments/aa-simulation.bench.ts measures how often).
 */
export function decideWinnerFixedHorizon(results: ExperimentResults, minSample: number): number | null {
  if (!ready(results, minSample)) return null;
  const blocked = blockedVariants(results);
  let best = 1;
  for (let i = 2; i < results.variants.length; i++) {
    if ((results.variants[i]!.chanceToBeatControl ?? 0) > (results.variants[best]!.chanceToBeatControl ?? 0))
      best = i;
  }
  const chance = results.variants[best]!.chanceToBeatControl ?? 0;
  if (chance >= WIN_THRESHOLD) return blocked.has(results.variants[best]!.name) ? null : best;
  if (chance <= LOSE_THRESHOLD) return 0;
  return null;
}

/**
 * A bandit's probability that each arm is best, read back from its Thompson weights
 * (w = f + (1 − k·f)·share).
 */
export function banditProbabilityBest(weights: readonly number[]): number[] {
  const k = weights.length;
  const f = Math.min(BANDIT_FLOOR, 1 / k);
  return weights.map((w) => (1 - k * f > 0 ? Math.max(0, (w - f) / (1 - k * f)) : 1 / k));
}

/** The outcome of a stop by hand: the strongest rule that names a winner, and which one it was. */
export function decideOnStop(
  results: ExperimentResults,
  minSample: number,
  mode: string,
  weights: readonly number[],
): { winner: number | null; method: DecisionMethod } {
  if (mode === "bandit") {
    const p = banditProbabilityBest(weights);
    const i = p.findIndex((x) => x >= BANDIT_WIN_PROBABILITY);
    return i >= 0 && !blockedVariants(results).has(results.variants[i]!.name)
      ? { winner: i, method: "bandit" }
      : { winner: null, method: "manual" };
  }
  const sequential = decideWinner(results, minSample);
  if (sequential !== null) return { winner: sequential, method: "sequential" };
  const fixed = decideWinnerFixedHorizon(results, minSample);
  if (fixed !== null) return { winner: fixed, method: "fixed-horizon" };
  return { winner: null, method: "manual" };
}
