/**
 * Reads a server's memory log (mixed-load.bench.ts with BENCH_MEMORY_LOG) and says what its RSS
 * peaks hold: a line every BENCH_EVERY seconds (RSS, V8's heap committed and used, old space,
 * memory outside the heap, full collections so far), then each RSS fall of over 40 MB within
 * 10 s and whether a full collection came in it, and the live heap's range right after full
 * collections (what survives: the floor the peaks stand on).
 * Run: npx tsx bench/platform/memory-log-summary.ts /tmp/mem.<port>.jsonl   (BENCH_EVERY=30)
 */
import { readFileSync } from "node:fs";

interface Line {
  t: number;
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  fullGcs: number;
  spaces: Record<string, [used: number, size: number]>;
}
const EVERY = Number(process.env.BENCH_EVERY ?? 30);
const file = process.argv[2];
if (!file) throw new Error("usage: memory-log-summary.ts <memory log .jsonl>");
const lines = readFileSync(file, "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l) as Line);

const old = (l: Line) => l.spaces.old_space ?? [0, 0];
console.log(
  "   t s   RSS   heap committed   heap used   old space used/committed   external (buffers)   full GCs",
);
for (const l of lines.filter((l) => l.t % EVERY === 0))
  console.log(
    `${String(l.t).padStart(6)} ${String(l.rss).padStart(5)} ${String(l.heapTotal).padStart(16)} ${String(l.heapUsed).padStart(11)} ${`${old(l)[0]}/${old(l)[1]}`.padStart(26)} ${`${l.external} (${l.arrayBuffers})`.padStart(20)} ${String(l.fullGcs).padStart(10)}`,
  );

console.log("\nRSS falls of over 40 MB within 10 s:");
for (let i = 10; i < lines.length; i++) {
  const a = lines[i - 10]!;
  const b = lines[i]!;
  const peak = lines.slice(i - 10, i + 1).reduce((m, l) => (l.rss > m.rss ? l : m));
  if (peak.rss - b.rss > 40 && peak === a) {
    console.log(
      `  t ${a.t}→${b.t} s: RSS ${a.rss}→${b.rss} MB, heap committed ${a.heapTotal}→${b.heapTotal}, used ${a.heapUsed}→${b.heapUsed}, external ${a.external}→${b.external}, full GCs +${b.fullGcs - a.fullGcs}`,
    );
    i += 10;
  }
}

// The heap used in the first sample after each full collection: what was live then.
const afterFull: number[] = [];
for (let i = 1; i < lines.length; i++)
  if (lines[i]!.fullGcs > lines[i - 1]!.fullGcs) afterFull.push(lines[i]!.heapUsed);
const range = (xs: number[]) => (xs.length ? `${Math.min(...xs)}–${Math.max(...xs)} MB` : "none");
console.log(`\nheap used right after a full collection (${afterFull.length}): ${range(afterFull)}`);
console.log(`heap used, all samples: ${range(lines.map((l) => l.heapUsed))}`);
console.log(
  `heap committed: ${range(lines.map((l) => l.heapTotal))}; RSS: ${range(lines.map((l) => l.rss))}`,
);
console.log(`outside the heap (external): ${range(lines.map((l) => l.external))}`);
