/**
 * Bayesian confidence update in log-odds (DESIGN.md): logit(c') = logit(c) + K · delta · w(n),
 * w(n) = sqrt(n / (n + N0)) grows with the sample size and saturates at 1. Evidence without a
 * sample size weighs as if n = N0 (w ≈ 0.71). Results clamp to [MIN, MAX] so no evidence makes a
 * belief certain.
 */
export const K = 4;
export const N0 = 100;
export const MIN = 0.001;
export const MAX = 0.999;

const logit = (p: number) => Math.log(p / (1 - p));
const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));
const clamp = (p: number) => Math.min(MAX, Math.max(MIN, p));

export function evidenceWeight(sampleSize: number | undefined): number {
  const n = sampleSize === undefined ? N0 : Math.max(0, sampleSize);
  return Math.sqrt(n / (n + N0));
}

export function updateConfidence(confidence: number, delta: number, sampleSize?: number): number {
  const weight = evidenceWeight(sampleSize);
  // Evidence that weighs nothing moves nothing: K · delta may overflow to ±Infinity, and
  // Infinity · 0 is NaN, which PostgreSQL would store.
  if (delta === 0 || weight === 0) return confidence;
  const next = clamp(sigmoid(logit(clamp(confidence)) + K * delta * weight));
  // A belief stored at an extreme (0 or 1 given at creation) must not move against the evidence by clamping.
  return delta > 0 ? Math.max(next, Math.min(confidence, MAX)) : Math.min(next, Math.max(confidence, MIN));
}
