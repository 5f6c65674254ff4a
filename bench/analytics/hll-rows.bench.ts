/**
 * What a flush pays per rollup row it adds visitors to (src/modules/analytics/ingest/hll.ts
 * `mergedSketch`), by the row's size: its stored text, 5 new visitors merged into the decoded
 * sketch kept from the last flush, and the same with the text decoded anew (another process wrote
 * the row). Baseline: a dense row (4,096 registers), what every row past the exact limit is.
 * Run: npx tsx bench/analytics/hll-rows.bench.ts
 */
import { VisitorSketch, mergedSketch } from "../../src/modules/analytics/ingest/hll.js";

let x = 99;
const random = () => {
  x ^= x << 13;
  x ^= x >>> 17;
  x ^= x << 5;
  return x >>> 0;
};
const five = () => new Set([random(), random(), random(), random(), random()]);

/** Best of 30 rounds: each starts from the stored row (decoded once, untimed), then 20 timed merges. */
function perMerge(stored: string, key: string | undefined): number {
  let out = Number.POSITIVE_INFINITY;
  for (let r = 0; r < 30; r++) {
    let text = stored;
    if (key) text = mergedSketch(text, five(), key) ?? text;
    const t = performance.now();
    for (let i = 0; i < 20; i++) text = mergedSketch(key ? text : stored, five(), key) ?? text;
    out = Math.min(out, (performance.now() - t) / 20);
  }
  return out * 1000;
}

console.log("| visitors in the row | stored as | text | merge, sketch kept | merge, decoded anew |");
console.log("|---:|---|---:|---:|---:|");
// 20 merges of 5 keep each row below the exact limit (4,096) or dense
for (const n of [400, 2000, 3900, 6000]) {
  const s = new VisitorSketch();
  for (let i = 0; i < n; i++) s.add(random());
  const stored = s.serialize();
  const kept = perMerge(stored, `bench|${n}`);
  const anew = perMerge(stored, undefined);
  console.log(
    `| ${n.toLocaleString("en")} | ${stored.startsWith("d") ? "dense" : "exact set"} | ${(stored.length / 1024).toFixed(1)} KB | ${kept.toFixed(1)} µs | ${anew.toFixed(1)} µs |`,
  );
}
