/**
 * Auto-completion under repeated looks: seeded simulations (src/modules/experiments/simulation.testing.ts)
 * of the sequential rule (decideWinner, mSPRT) and the old single-look rule
 * (decideWinnerFixedHorizon, chance to beat control ≥ 0.95 or ≤ 0.05), each checked after every
 * batch up to BENCH_MAX visitors per arm, minimum sample 100 per arm.
 * - A/A (no true difference) at base rates 0.10 and 0.03: every completion is false.
 * - A/B with a true relative lift of 10% and 20% (base 0.10): median visitors per arm to a
 *   decision, share decided by BENCH_MAX, and completions naming the control (wrong way).
 * Both rules see the same visitors (run k's stream depends only on the seed and k).
 * Run: npx tsx bench/experiments/aa-simulation.bench.ts
 *   (BENCH_RUNS=2000 runs per line, BENCH_BATCH=100 visitors per arm per look, BENCH_MAX=20000,
 *   BENCH_SEED=17)
 */
import {
  type CompletionRule,
  simulateExperiments,
} from "../../src/modules/experiments/simulation.testing.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 2000);
const BATCH = Number(process.env.BENCH_BATCH ?? 100);
const MAX = Number(process.env.BENCH_MAX ?? 20_000);
const SEED = Number(process.env.BENCH_SEED ?? 17);
const RULES: CompletionRule[] = ["sequential", "fixed-horizon"];

/** Wilson score 95% interval of a binomial proportion. */
function wilson(k: number, n: number): [number, number] {
  if (n === 0) return [0, 1];
  const z = 1.959963984540054;
  const p = k / n;
  const d = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / d;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / d;
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const rate = (k: number, n: number) => {
  const [lo, hi] = wilson(k, n);
  return `${pct(k / n)} (${k}/${n}; ${pct(lo)}–${pct(hi)})`;
};
const fmt = (n: number | null) => (n === null ? "—" : n.toLocaleString("en-US"));

function run(rule: CompletionRule, baseRate: number, relativeLift: number) {
  const t0 = performance.now();
  const r = simulateExperiments({
    runs: RUNS,
    baseRate,
    relativeLift,
    maxPerArm: MAX,
    batchPerArm: BATCH,
    seed: SEED,
    rule,
  });
  const s = (performance.now() - t0) / 1000;
  console.error(`  ${rule} base ${baseRate} lift ${relativeLift}: ${s.toFixed(1)} s`);
  return r;
}

const started = performance.now();
console.log(
  `runs per line: ${RUNS}; looks every ${BATCH} visitors per arm up to ${fmt(MAX)}; seed ${SEED}\n`,
);

console.log("A/A: false-completion rate (95% Wilson interval)\n");
console.log("| rule | base 0.10 | base 0.03 | median visitors/arm at false completion (0.10) |");
console.log("| --- | --- | --- | --- |");
for (const rule of RULES) {
  const a = run(rule, 0.1, 0);
  const b = run(rule, 0.03, 0);
  console.log(
    `| ${rule} | ${rate(a.falseCompletions, a.runs)} | ${rate(b.falseCompletions, b.runs)} | ${fmt(a.medianVisitorsPerArmToDecision)} |`,
  );
}

console.log("\nA/B, base 0.10: visitors per arm to a decision\n");
console.log(
  "| rule | true lift | decided by " +
    fmt(MAX) +
    " | for the variant | for the control (wrong) | median visitors/arm (decided runs) |",
);
console.log("| --- | --- | --- | --- | --- | --- |");
for (const rule of RULES) {
  for (const lift of [0.1, 0.2]) {
    const r = run(rule, 0.1, lift);
    console.log(
      `| ${rule} | ${pct(lift)} | ${rate(r.completed, r.runs)} | ${pct(r.winnerVariant / r.runs)} | ${pct(r.falseCompletions / r.runs)} | ${fmt(r.medianVisitorsPerArmToDecision)} |`,
    );
  }
}
console.log(`\ntotal: ${((performance.now() - started) / 1000).toFixed(0)} s`);
