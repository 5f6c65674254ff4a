/**
 * Assignment throughput: our bucketing (src/modules/experiments/bucketing.ts) vs
 * @growthbook/growthbook's gb.run() on the same 1M visitor ids, same run, same process.
 * Also counts agreement on those ids (not timed).
 * Run: npx tsx bench/experiments/bucketing.bench.ts   (BENCH_IDS=1000000 by default)
 */
import { GrowthBook } from "@growthbook/growthbook";
import { assignVariant } from "../../src/modules/experiments/bucketing.js";

const N = Number(process.env.BENCH_IDS ?? 1_000_000);
const SEED = "exp_bench_2f9c";
const WEIGHTS = [0.2, 0.3, 0.5];
const SPLIT = 80;
const ids = Array.from({ length: N }, (_, i) => `${(i * 2654435761) >>> 0}-${i.toString(36)}-visitor`);
const variations = [0, 1, 2] as [number, number, number];

const oursOut = new Int8Array(N);
const gbOut = new Int8Array(N);

function ours(n: number): void {
  for (let i = 0; i < n; i++) oursOut[i] = assignVariant(SEED, ids[i]!, WEIGHTS, SPLIT);
}

function growthbook(n: number): void {
  const gb = new GrowthBook({ attributes: { id: "" } });
  const exp = { key: SEED, seed: SEED, hashVersion: 2, variations, weights: WEIGHTS, coverage: SPLIT / 100 };
  for (let i = 0; i < n; i++) {
    gb.setAttributes({ id: ids[i]! });
    const r = gb.run(exp);
    gbOut[i] = r.inExperiment ? r.variationId : -1;
  }
}

function time(fn: (n: number) => void): { ms: number } {
  const t0 = performance.now();
  fn(N);
  return { ms: performance.now() - t0 };
}

// Warm-up on 100k ids (JIT), then ours, GrowthBook, ours again; our figure is the mean of the two.
ours(100_000);
growthbook(100_000);
const o1 = time(ours);
const g = time(growthbook);
const o2 = time(ours);
let agree = 0;
for (let i = 0; i < N; i++) if (oursOut[i] === gbOut[i]) agree++;

const oursMs = (o1.ms + o2.ms) / 2;
const perSec = (ms: number) => ((N / ms) * 1000).toFixed(0);
console.log(`ids: ${N}; agreement ${agree}/${N}`);
console.log(
  `ours        : ${oursMs.toFixed(0)} ms (${o1.ms.toFixed(0)} / ${o2.ms.toFixed(0)}) = ${perSec(oursMs)} assignments/s`,
);
console.log(`growthbook  : ${g.ms.toFixed(0)} ms = ${perSec(g.ms)} assignments/s`);
console.log(`ratio ours/growthbook throughput: ${(g.ms / oursMs).toFixed(2)} (target >= 1)`);
