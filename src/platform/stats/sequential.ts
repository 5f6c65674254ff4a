/**
 * The mixture sequential probability ratio test (mSPRT): an always-valid test, so an experiment may
 * be looked at every day and stopped when it decides, and the projection of how many visitors it
 * needs to. Numbers in, numbers out, like the rest of platform/stats.
 */
/** Two-sided level of every sequential decision. */
export const SEQUENTIAL_ALPHA = 0.05;
/**
 * The sequential test's tuning: the total sample (both arms) at which its interval is narrowest.
 * Smaller values decide large effects sooner and small ones later (docs/decisions/experiments.md).
 */
export const SEQUENTIAL_TUNING = 5000;

/** ρ² of the normal mixture, chosen so the interval is narrowest at `tuning` units (Waudby-Smith et al.). */
export function sequentialRho2(tuning = SEQUENTIAL_TUNING, alpha = SEQUENTIAL_ALPHA): number {
  const l = -2 * Math.log(alpha);
  return (l + Math.log(l + 1)) / tuning;
}

export interface SequentialEstimate {
  estimate: number;
  /** Always-valid two-sided p-value: 1 / the mixture likelihood ratio, capped at 1. */
  pValue: number;
  /** Confidence sequence at level 1 − alpha: holds at every look simultaneously. */
  interval: [number, number];
}

/**
 * The normal-mixture sequential probability ratio test (mSPRT; Johari et al. 2017) on an estimate
 * with variance `variance` from `n` units, mixing variance τ² = ρ²·(n·variance) so the test is
 * scale-free. Λ = (1 + nρ²)^(−½)·exp(z²·nρ² / (2(1 + nρ²))); rejecting when Λ ≥ 1/α has type I
 * error ≤ α however often it is checked. Its interval is the matching asymptotic confidence
 * sequence (Waudby-Smith et al. 2021, the one GrowthBook's sequential testing uses).
 */
export function sequentialTest(
  estimate: number,
  variance: number,
  n: number,
  alpha = SEQUENTIAL_ALPHA,
  rho2 = sequentialRho2(),
): SequentialEstimate {
  if (!(variance > 0) || n <= 0) return { estimate, pValue: 1, interval: [estimate, estimate] };
  const r = n * rho2;
  const z2 = (estimate * estimate) / variance;
  const logLambda = -0.5 * Math.log1p(r) + (z2 * r) / (2 * (1 + r));
  const half = Math.sqrt(((variance * (1 + r)) / r) * (2 * Math.log(1 / alpha) + Math.log1p(r)));
  return {
    estimate,
    pValue: Math.min(1, Math.exp(-logLambda)),
    interval: [estimate - half, estimate + half],
  };
}

/** mSPRT on p_B − p_A; the unpooled variance, or the pooled one when that is 0 (rates of 0 or 1). */
export function sequentialProportions(
  nA: number,
  cA: number,
  nB: number,
  cB: number,
  alpha = SEQUENTIAL_ALPHA,
): SequentialEstimate | null {
  if (nA === 0 || nB === 0) return null;
  const pA = cA / nA;
  const pB = cB / nB;
  let v = (pA * (1 - pA)) / nA + (pB * (1 - pB)) / nB;
  if (!(v > 0)) {
    const pooled = (cA + cB) / (nA + nB);
    v = pooled * (1 - pooled) * (1 / nA + 1 / nB);
  }
  return sequentialTest(pB - pA, v, nA + nB, alpha);
}

/** More than this many visitors per arm is "not detectable in practice" (`visitorsToDecide`). */
export const VISITORS_TO_DECIDE_LIMIT = 1_000_000;

/**
 * Visitors to add to each of two arms before the mSPRT (`sequentialTest`) rejects "no
 * difference" at `alpha`, if the rates seen so far hold. 0 when it already does; Infinity when
 * the rates are equal or it would take more than `VISITORS_TO_DECIDE_LIMIT` per arm; null without
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
    if (hi > VISITORS_TO_DECIDE_LIMIT) return Number.POSITIVE_INFINITY;
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
