import { formatConfidence as pct } from "./confidence-format.js";
import type { DecisionMethod } from "./decision.js";
import type { ExperimentResults, VariantResult } from "./results.js";
import { SEQUENTIAL_ALPHA, sequentialRho2 } from "./stats.js";

/**
 * The experiment's outcome in plain words (a running experiment showed "Confidence 89%"
 * beside the sequential test's "not yet"). One confidence figure, the sequential test's — the
 * test that decides — and, while nothing is decided, how many more visitors per variant it would
 * take at the rates seen so far.
 */

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

/** More than this many visitors per variant is "not detectable in practice". */
const MAX_VISITORS = 1_000_000;

/** "about 1,300": two significant figures, rounded up (a need is never understated). */
export function roughly(n: number): string {
  if (n < 100) return String(Math.ceil(n));
  const step = 10 ** (Math.floor(Math.log10(n)) - 1);
  return (Math.ceil(n / step) * step).toLocaleString("en-US");
}

/**
 * Visitors to add to each of two arms before the mSPRT (stats.ts `sequentialTest`) rejects "no
 * difference" at `alpha`, if the rates seen so far hold. 0 when it already does; Infinity when
 * the rates are equal or it would take more than `MAX_VISITORS` per arm; null without
 * conversions (no variance to project from).
 */
export function visitorsToDecide(
  nA: number,
  cA: number,
  nB: number,
  cB: number,
  alpha = SEQUENTIAL_ALPHA,
): number | null {
  if (nA === 0 || nB === 0) return null;
  const pA = cA / nA;
  const pB = cB / nB;
  const vA = pA * (1 - pA);
  const vB = pB * (1 - pB);
  if (vA + vB === 0) return cA + cB === 0 ? null : Number.POSITIVE_INFINITY;
  const d = pB - pA;
  if (d === 0) return Number.POSITIVE_INFINITY;
  const rho2 = sequentialRho2();
  const threshold = Math.log(1 / alpha);
  // log Λ with m more per arm: the same formula as sequentialTest, at the same rates.
  const logLambda = (m: number) => {
    const v = vA / (nA + m) + vB / (nB + m);
    const r = (nA + nB + 2 * m) * rho2;
    return -0.5 * Math.log1p(r) + ((d * d) / v) * (r / (2 * (1 + r)));
  };
  if (logLambda(0) >= threshold) return 0;
  let hi = Math.max(1, nA + nB);
  while (logLambda(hi) < threshold) {
    if (hi > MAX_VISITORS) return Number.POSITIVE_INFINITY;
    hi *= 2;
  }
  let lo = Math.floor(hi / 2);
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (logLambda(mid) >= threshold) hi = mid;
    else lo = mid;
  }
  return hi;
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
  return n > MAX_VISITORS
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
  const better = r.variants
    .slice(1)
    .filter((v) => v.sequential?.decided && v.sequential.chanceToBeatControl > 0.5)
    .sort((a, b) => b.conversionRate - a.conversionRate)[0];
  const allWorse = r.variants
    .slice(1)
    .every((v) => v.sequential?.decided && v.sequential.chanceToBeatControl < 0.5);
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
