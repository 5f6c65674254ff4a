/**
 * The statistics engine: pure functions over per-variant counts. Textbook methods, each named:
 * Bayesian Beta–Binomial with a Beta(1,1) prior (exact closed form, Evan Miller 2015), pooled
 * two-proportion z-test, Wald interval on the difference, Pearson chi-square for sample ratio
 * mismatch (the mixture sequential test is sequential.ts). Special functions follow Numerical Recipes (Lanczos
 * log-gamma, incomplete gamma). Numbers in, numbers out: nothing here knows an experiment's row,
 * status or mode (the experiments module decides with them; results.ts assembles them).
 */

const LANCZOS = [
  676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
  -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** ln Γ(x) for x > 0 (Lanczos, g = 7, n = 9; ~15 significant digits). */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let a = 0.99999999999980993;
  const t = z + 7.5;
  for (let i = 0; i < 8; i++) a += LANCZOS[i]! / (z + i + 1);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

export const logBeta = (a: number, b: number) => logGamma(a) + logGamma(b) - logGamma(a + b);

/** Standard normal CDF via erfc (W. J. Cody's rational approximation through Numerical Recipes' erfc, |ε| < 1.2e-7). */
export function normalCdf(z: number): number {
  return 0.5 * erfc(-z / Math.SQRT2);
}

function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 +
                            t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

/** Regularized upper incomplete gamma Q(a, x) (series below a+1, continued fraction above). */
export function gammaQ(a: number, x: number): number {
  if (x <= 0) return 1;
  const gln = logGamma(a);
  if (x < a + 1) {
    let ap = a;
    let sum = 1 / a;
    let del = sum;
    for (let n = 0; n < 1000; n++) {
      ap += 1;
      del *= x / ap;
      sum += del;
      if (Math.abs(del) < Math.abs(sum) * 1e-15) break;
    }
    return 1 - sum * Math.exp(-x + a * Math.log(x) - gln);
  }
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const del = d * c;
    h *= del;
    if (Math.abs(del - 1) < 1e-15) break;
  }
  return Math.exp(-x + a * Math.log(x) - gln) * h;
}

/** Upper tail of the chi-square distribution with `df` degrees of freedom. */
export const chiSquareSurvival = (x: number, df: number) => gammaQ(df / 2, x / 2);

// Above this many terms the exact sum is replaced by the normal approximation of both Betas,
// which at such counts agrees to well under 1e-4 and keeps the events writer fast.
const EXACT_TERMS_LIMIT = 20_000;

/**
 * P(p_B > p_A) for p ~ Beta(1 + conversions, 1 + failures) — Evan Miller's closed form:
 * Σ_{i<αB} B(αA+i, βA+βB) / ((βB+i) B(1+i, βB) B(αA, βA)).
 */
export function chanceToBeat(
  control: { exposures: number; conversions: number },
  variant: { exposures: number; conversions: number },
): number {
  const aA = 1 + control.conversions;
  const bA = 1 + control.exposures - control.conversions;
  const aB = 1 + variant.conversions;
  const bB = 1 + variant.exposures - variant.conversions;
  if (aB > EXACT_TERMS_LIMIT) {
    const mean = (a: number, b: number) => a / (a + b);
    const vr = (a: number, b: number) => (a * b) / ((a + b) ** 2 * (a + b + 1));
    return normalCdf((mean(aB, bB) - mean(aA, bA)) / Math.sqrt(vr(aA, bA) + vr(aB, bB)));
  }
  const lbA = logBeta(aA, bA);
  let total = 0;
  for (let i = 0; i < aB; i++) {
    total += Math.exp(logBeta(aA + i, bA + bB) - Math.log(bB + i) - logBeta(1 + i, bB) - lbA);
  }
  return Math.min(1, Math.max(0, total));
}

/** Two-sided p-value of the pooled two-proportion z-test. */
export function twoProportionPValue(nA: number, cA: number, nB: number, cB: number): number {
  if (nA === 0 || nB === 0) return 1;
  const pooled = (cA + cB) / (nA + nB);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / nA + 1 / nB));
  if (se === 0) return 1;
  const z = (cB / nB - cA / nA) / se;
  return Math.min(1, 2 * (1 - normalCdf(Math.abs(z))));
}

/** Wald 95% interval of p_B − p_A (unpooled standard error). */
export function differenceInterval(nA: number, cA: number, nB: number, cB: number): [number, number] | null {
  if (nA === 0 || nB === 0) return null;
  const pA = cA / nA;
  const pB = cB / nB;
  const se = Math.sqrt((pA * (1 - pA)) / nA + (pB * (1 - pB)) / nB);
  const z = 1.959963984540054;
  return [pB - pA - z * se, pB - pA + z * se];
}

/** Pearson chi-square goodness-of-fit of observed exposures against the expected allocation. */
export function srmPValue(observed: readonly number[], weights: readonly number[]): number {
  const total = observed.reduce((s, o) => s + o, 0);
  if (total === 0 || observed.length < 2) return 1;
  const wSum = weights.reduce((s, w) => s + w, 0);
  let chi = 0;
  for (let i = 0; i < observed.length; i++) {
    const expected = (total * weights[i]!) / wSum;
    if (expected > 0) chi += (observed[i]! - expected) ** 2 / expected;
  }
  return chiSquareSurvival(chi, observed.length - 1);
}

/** Mulberry32: a small seeded PRNG, so Monte Carlo results are reproducible. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(rand: () => number): number {
  let u = 0;
  while (u === 0) u = rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}

/** Gamma(shape, 1) draw by Marsaglia–Tsang (shape ≥ 1; the boost handles shape < 1). */
function gammaDraw(shape: number, rand: () => number): number {
  if (shape < 1) return gammaDraw(shape + 1, rand) * rand() ** (1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = gaussian(rand);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = rand();
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
  }
}

export function betaDraw(a: number, b: number, rand: () => number): number {
  const x = gammaDraw(a, rand);
  return x / (x + gammaDraw(b, rand));
}

/**
 * Holm–Bonferroni adjustment of the p-values of several comparisons (nulls are not comparisons and
 * stay null): sorted ascending, the k-th of m is multiplied by m − k + 1, kept monotone, capped at
 * 1. It controls the family-wise error rate like Bonferroni and rejects at least as often.
 */
export function holmAdjust(pValues: readonly (number | null)[]): (number | null)[] {
  const order = pValues
    .map((p, i) => ({ p, i }))
    .filter((x): x is { p: number; i: number } => x.p !== null)
    .sort((a, b) => a.p - b.p);
  const out: (number | null)[] = pValues.map(() => null);
  let running = 0;
  order.forEach(({ p, i }, k) => {
    running = Math.max(running, Math.min(1, (order.length - k) * p));
    out[i] = running;
  });
  return out;
}

export interface MeanSummary {
  n: number;
  sum: number;
  sumSquares: number;
}

/** Mean and unbiased variance from running sums (a visitor without revenue counts as 0). */
export function meanAndVariance(s: MeanSummary): { mean: number; variance: number } {
  if (s.n === 0) return { mean: 0, variance: 0 };
  const mean = s.sum / s.n;
  const variance = s.n > 1 ? Math.max(0, (s.sumSquares - s.n * mean * mean) / (s.n - 1)) : 0;
  return { mean, variance };
}

const Z_975 = 1.959963984540054;

/**
 * Welch's 95% interval of mean_B − mean_A (unequal variances; at these sample sizes the normal
 * quantile stands in for Student's t), and the delta-method interval of the relative difference
 * mean_B / mean_A − 1: Var ≈ Var(B̄)/Ā² + B̄²·Var(Ā)/Ā⁴. Null where a side is empty or Ā is 0.
 */
export function meanDifferenceIntervals(
  a: MeanSummary,
  b: MeanSummary,
): { difference: [number, number] | null; relative: [number, number] | null } {
  if (a.n < 2 || b.n < 2) return { difference: null, relative: null };
  const A = meanAndVariance(a);
  const B = meanAndVariance(b);
  const vA = A.variance / a.n;
  const vB = B.variance / b.n;
  const d = B.mean - A.mean;
  const se = Math.sqrt(vA + vB);
  const difference: [number, number] = [d - Z_975 * se, d + Z_975 * se];
  if (A.mean === 0) return { difference, relative: null };
  const rel = B.mean / A.mean - 1;
  const relSe = Math.sqrt(vB / A.mean ** 2 + (B.mean ** 2 * vA) / A.mean ** 4);
  return { difference, relative: [rel - Z_975 * relSe, rel + Z_975 * relSe] };
}
