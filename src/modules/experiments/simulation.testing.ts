/**
 * A seeded Monte Carlo of experiment auto-completion: two arms, visitors arriving in batches, the
 * completion rule applied after every batch exactly as the processor would (through
 * `computeResults`), the first decision ending the run. Pure and deterministic for a given seed;
 * used by bench/experiments/aa-simulation.bench.ts and simulation.test.ts.
 */
import { computeResults, type VariantCounts } from "../../platform/stats/results.js";
import { mulberry32 } from "../../platform/stats/stats.js";
import { decideWinner, decideWinnerFixedHorizon } from "./outcome.js";

/** `sequential`: the automatic rule (mSPRT); `fixed-horizon`: the single-look rule checked at every look. */
export type CompletionRule = "fixed-horizon" | "sequential";

export interface SimulationOptions {
  runs: number;
  /** Control's conversion rate. */
  baseRate: number;
  /** True relative lift of the variant: its rate is baseRate·(1 + relativeLift); 0 = an A/A test. */
  relativeLift: number;
  /** A run that has not decided when each arm reaches this many visitors stops undecided. */
  maxPerArm: number;
  /** Visitors per arm between two looks. */
  batchPerArm: number;
  seed: number;
  rule: CompletionRule;
  /** Exposures every arm needs before a decision (the product default, 100). */
  minSample?: number;
}

export interface SimulationSummary {
  runs: number;
  /** Runs the rule ended (named a winner) before maxPerArm. */
  completed: number;
  /** A/A: every completion. With a true lift: completions naming the worse arm (the control when lift > 0). */
  falseCompletions: number;
  falseCompletionRate: number;
  completionRate: number;
  /** Completions naming the variant. */
  winnerVariant: number;
  /** Median over decided runs of the visitors per arm at the decision; null when none decided. */
  medianVisitorsPerArmToDecision: number | null;
  /** Visitors per arm at each decision, in run order (decided runs only). */
  visitorsPerArmAtDecision: number[];
}

export const DEFAULT_MIN_SAMPLE = 100;
const WEIGHTS = [1, 1] as const;

/** A run's own stream, so run k sees the same visitors whatever the rule or the other runs did. */
const runSeed = (seed: number, run: number) =>
  (Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + run * 0x27d4eb2f) >>> 0;

/** Conversions among `n` visitors who each convert with probability `p` (Bernoulli draws). */
function conversions(n: number, p: number, rand: () => number): number {
  let c = 0;
  for (let i = 0; i < n; i++) if (rand() < p) c++;
  return c;
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const s = [...values].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * One run: returns the winner's index (0 = control) and the visitors per arm at the decision, or
 * null when it reached `maxPerArm` undecided.
 */
export function simulateRun(
  opts: Omit<SimulationOptions, "runs" | "seed">,
  rand: () => number,
): { winner: number; visitorsPerArm: number } | null {
  const decide = opts.rule === "sequential" ? decideWinner : decideWinnerFixedHorizon;
  const minSample = opts.minSample ?? DEFAULT_MIN_SAMPLE;
  const rates = [opts.baseRate, opts.baseRate * (1 + opts.relativeLift)];
  const counts: VariantCounts[] = [
    { name: "control", exposures: 0, conversions: 0 },
    { name: "variant", exposures: 0, conversions: 0 },
  ];
  while (counts[0]!.exposures < opts.maxPerArm) {
    const batch = Math.min(opts.batchPerArm, opts.maxPerArm - counts[0]!.exposures);
    counts.forEach((arm, i) => {
      arm.exposures += batch;
      arm.conversions += conversions(batch, rates[i]!, rand);
    });
    const { results } = computeResults(counts, WEIGHTS);
    const winner = decide(results, minSample);
    if (winner !== null) return { winner, visitorsPerArm: counts[0]!.exposures };
  }
  return null;
}

export function simulateExperiments(opts: SimulationOptions): SimulationSummary {
  let completed = 0;
  let falseCompletions = 0;
  let winnerVariant = 0;
  const visitorsPerArmAtDecision: number[] = [];
  for (let run = 0; run < opts.runs; run++) {
    const outcome = simulateRun(opts, mulberry32(runSeed(opts.seed, run)));
    if (!outcome) continue;
    completed++;
    visitorsPerArmAtDecision.push(outcome.visitorsPerArm);
    if (outcome.winner > 0) winnerVariant++;
    const wrong =
      opts.relativeLift === 0 || (opts.relativeLift > 0 ? outcome.winner === 0 : outcome.winner > 0);
    if (wrong) falseCompletions++;
  }
  return {
    runs: opts.runs,
    completed,
    falseCompletions,
    falseCompletionRate: opts.runs > 0 ? falseCompletions / opts.runs : 0,
    completionRate: opts.runs > 0 ? completed / opts.runs : 0,
    winnerVariant,
    medianVisitorsPerArmToDecision: median(visitorsPerArmAtDecision),
    visitorsPerArmAtDecision,
  };
}
