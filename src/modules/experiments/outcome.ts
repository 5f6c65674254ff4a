import { banditProbabilityBest } from "../../platform/stats/allocation.js";
import { formatConfidence as pct } from "../../platform/stats/confidence-format.js";
import type { ExperimentResults, VariantResult } from "../../platform/stats/results.js";
import {
  SEQUENTIAL_ALPHA,
  VISITORS_TO_DECIDE_LIMIT,
  visitorsToDecide,
} from "../../platform/stats/sequential.js";

/**
 * An experiment's outcome from its results (platform/stats/results.ts): the rules that name a
 * winner — automatically, or on a stop by hand — and the verdict, the same reading in plain words.
 * Both read the sequential test through `sequentialFindings`, so the verdict's "wins" and the
 * automatic rule never disagree on what the test found.
 */

/**
 * What named an experiment's outcome: `sequential` (the always-valid test, the automatic rule),
 * `fixed-horizon` (a manual stop where only the single-look figures name a winner), `bandit` (a
 * stopped bandit's probability of being best), `manual` (stopped by hand, nothing named a winner).
 */
export type DecisionMethod = "sequential" | "fixed-horizon" | "bandit" | "manual";

/** A stopped bandit names the arm whose probability of being best is at least this. */
export const BANDIT_WIN_PROBABILITY = 0.95;
/** The single-look rule: the best variant's Bayesian chance to beat control names it, or the control. */
const WIN_THRESHOLD = 0.95;
const LOSE_THRESHOLD = 0.05;

const ready = (results: ExperimentResults, minSample: number) =>
  !results.srm.mismatch && results.variants.every((v) => v.exposures >= minSample);

/** Variants a failing guardrail keeps from winning. */
const blockedVariants = (results: ExperimentResults) =>
  new Set(results.guardrails.filter((g) => g.status === "failing").map((g) => g.variant));

/**
 * What the sequential test (Holm-adjusted across challengers) found: the variants it found better
 * than the control, highest conversion rate first, and whether it found every variant worse.
 */
function sequentialFindings(results: ExperimentResults): { better: VariantResult[]; allWorse: boolean } {
  const challengers = results.variants.slice(1);
  return {
    better: challengers
      .filter((v) => v.sequential?.decided && v.sequential.chanceToBeatControl > 0.5)
      .sort((a, b) => b.conversionRate - a.conversionRate),
    allWorse: challengers.every((v) => v.sequential?.decided && v.sequential.chanceToBeatControl < 0.5),
  };
}

/**
 * The automatic rule: every arm has `minSample` exposures, no sample ratio mismatch, and the
 * sequential test finds a variant better than control — the best such variant wins unless a
 * guardrail fails for it — or finds every variant worse (the control wins). Returns the winner's
 * index, or null to keep running.
 */
export function decideWinner(results: ExperimentResults, minSample: number): number | null {
  if (!ready(results, minSample)) return null;
  const blocked = blockedVariants(results);
  const { better, allWorse } = sequentialFindings(results);
  const best = better.find((v) => !blocked.has(v.name));
  if (best) return results.variants.indexOf(best);
  return allWorse ? 0 : null;
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

// ---- the verdict ----
// The outcome in plain words (a running experiment showed "Confidence 89%" beside the sequential
// test's "not yet"). One confidence figure, the sequential test's — the test that decides — and,
// while nothing is decided, how many more visitors per variant it would take at the rates seen so far.

export type VerdictState =
  | "no_data"
  | "srm"
  | "collecting"
  | "leading"
  | "significant"
  | "won"
  | "no_winner"
  | "bandit";

export interface Verdict {
  state: VerdictState;
  text: string;
  /** the variant ahead (the control when every variant does worse), null without a difference */
  leader: string | null;
  /** 1 − the always-valid p-value (Holm-adjusted) of the clearest comparison with the control */
  confidence: number;
  /** visitors per variant still needed to decide at the current rates; null when unknowable */
  moreVisitorsPerVariant: number | null;
}

export interface VerdictInput {
  results: ExperimentResults;
  status: string;
  mode: string;
  minSample: number;
  winner: string | null;
  method: DecisionMethod;
  /** a bandit's probability of each arm being best, in variant order */
  probabilityBest: number[] | null;
}

/** "about 1,300": two significant figures, rounded up (a need is never understated). */
export function roughly(n: number): string {
  if (n < 100) return String(Math.ceil(n));
  const step = 10 ** (Math.floor(Math.log10(n)) - 1);
  return (Math.ceil(n / step) * step).toLocaleString("en-US");
}

const minExposures = (r: ExperimentResults) => Math.min(...r.variants.map((v) => v.exposures));

/** The challenger whose comparison with the control is clearest (smallest adjusted p-value). */
function clearest(r: ExperimentResults): VariantResult | null {
  let best: VariantResult | null = null;
  for (const v of r.variants.slice(1))
    if (v.sequential && (!best || v.sequential.pValue < best.sequential!.pValue)) best = v;
  return best;
}

function more(n: number): string {
  if (n <= 0) return "the sequential test is close to deciding";
  return n > VISITORS_TO_DECIDE_LIMIT
    ? "it would take more than a million more visitors per variant at these rates: the difference may be too small to detect"
    : `about ${roughly(n)} more visitors per variant if the rates hold`;
}

function completed(i: VerdictInput, confidence: number): Verdict {
  const r = i.results;
  const base = { confidence, moreVisitorsPerVariant: null };
  if (!i.winner) return { ...base, state: "no_winner", leader: null, text: "Completed without a winner." };
  const how: Record<DecisionMethod, string> = {
    sequential: `with ${pct(confidence)} confidence (sequential test)`,
    "fixed-horizon":
      "by the fixed-horizon figures when stopped by hand (weaker evidence than the sequential test)",
    bandit: "as the bandit's most probable best arm",
    manual: "by hand",
  };
  const text =
    i.winner === r.control
      ? `${r.control} (the control) won ${how[i.method]}: no variant beat it.`
      : `${i.winner} won ${how[i.method]}.`;
  return { ...base, state: "won", leader: i.winner, text };
}

export function verdictOf(i: VerdictInput): Verdict {
  const r = i.results;
  const ref = clearest(r);
  const confidence = r.totalExposures > 0 && ref?.sequential ? 1 - ref.sequential.pValue : 0;
  if (i.status === "completed") return completed(i, confidence);
  const none = { leader: null, confidence: 0, moreVisitorsPerVariant: null };
  if (r.totalExposures === 0)
    return {
      ...none,
      state: "no_data",
      text: "No visitors yet: each variant shows zeros until the first exposure.",
    };
  if (i.mode === "bandit" && i.probabilityBest) {
    const p = i.probabilityBest;
    const k = p.indexOf(Math.max(...p));
    return {
      ...none,
      state: "bandit",
      leader: r.variants[k]?.name ?? null,
      confidence: p[k] ?? 0,
      text: `Bandit: ${r.variants[k]?.name} is most likely the best (${pct(p[k] ?? 0)}); a stop names it the winner from 95%.`,
    };
  }
  if (r.srm.mismatch)
    return {
      ...none,
      state: "srm",
      confidence,
      text: "No verdict: the variants' traffic is far from the planned split (sample ratio mismatch), so these results may be biased.",
    };
  const shortOfMinimum = Math.max(0, i.minSample - minExposures(r));
  const { better: found, allWorse } = sequentialFindings(r);
  const better = found[0];
  if (better || allWorse) {
    const leader = better ? better.name : r.control;
    const what = better
      ? `${leader} wins with ${pct(confidence)} confidence`
      : `${leader} (the control) wins: every variant does worse, with ${pct(confidence)} confidence`;
    const blocked = better && r.guardrails.some((g) => g.variant === better.name && g.status === "failing");
    const tail = blocked
      ? "; a failing guardrail keeps it from completing."
      : shortOfMinimum > 0
        ? `; it completes once every variant has ${i.minSample.toLocaleString("en-US")} visitors (${roughly(shortOfMinimum)} more).`
        : ".";
    return {
      state: "significant",
      leader,
      confidence,
      moreVisitorsPerVariant: shortOfMinimum,
      text: what + tail,
    };
  }
  // Not decided: who is ahead, and how far the sequential test is from deciding at these rates.
  const control = r.variants[0]!;
  const top = r.variants.reduce((a, v) => (v.conversionRate > a.conversionRate ? v : a), control);
  const cmp = top === control ? ref : top;
  if (r.totalConversions === 0 || !cmp)
    return {
      ...none,
      state: "collecting",
      confidence,
      text: "No winner yet — no conversions so far, so no estimate of how long it will take.",
    };
  const need = visitorsToDecide(
    control.exposures,
    control.conversions,
    cmp.exposures,
    cmp.conversions,
    SEQUENTIAL_ALPHA / Math.max(1, r.variants.length - 1),
  );
  if (need === null || cmp.conversionRate === control.conversionRate)
    return {
      ...none,
      state: "collecting",
      confidence,
      text: "No winner yet — no difference between the variants so far.",
    };
  const moreVisitors = Number.isFinite(need) ? Math.max(need, shortOfMinimum) : null;
  return {
    state: "leading",
    leader: top.name,
    confidence,
    moreVisitorsPerVariant: moreVisitors,
    text: `No winner yet — ${top.name}${top === control ? " (the control)" : ""} is ahead, not yet significant; ${more(moreVisitors ?? Number.POSITIVE_INFINITY)}.`,
  };
}
