/**
 * One merge of SQLite's per-visitor index (visitor-index.ts): BENCH_ENTRIES tail entries (default
 * 262,144, a merge's size) cycling through BENCH_VISITORS visitors (default 20,000) written as a
 * bucket in steps, each step raising the visitors' latest event time. Prints CPU µs per entry,
 * best of BENCH_RUNS, to compare two trees (`git archive` one into a directory of its own).
 * Run: npx tsx bench/events/index-merge.bench.ts
 */
import { openMigratedSqlite } from "../../test/helpers/sqlite.js";
import { VisitorIndex } from "../../src/modules/event-store/store/visitor-index.js";

const ENTRIES = Number(process.env.BENCH_ENTRIES ?? 262_144);
const VISITORS = Number(process.env.BENCH_VISITORS ?? 20_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

const handle = await openMigratedSqlite("index-merge-bench");
const sqlite = handle.sqlite!;
const costs: number[] = [];
for (let run = 0; run < RUNS; run++) {
  const index = new VisitorIndex(sqlite, ENTRIES);
  const values: unknown[] = [];
  const first = run * ENTRIES + 1;
  for (let i = 0; i < ENTRIES; i++)
    values.push("prj_bench", `v${i % VISITORS}`, 1_700_000_000_000 + run * ENTRIES + i, first + i);
  index.add(values, 4, first, { project: 0, visitor: 1, ts: 2 });
  index.commit();
  const before = process.cpuUsage();
  while (index.mergeDue) {
    sqlite.transaction(() => index.mergeStep())();
    index.stepCommitted();
  }
  const used = process.cpuUsage(before);
  costs.push((used.user + used.system) / ENTRIES);
}
console.log(
  `index merge: ${ENTRIES.toLocaleString("en-US")} entries, ${VISITORS.toLocaleString("en-US")} visitors: ` +
    `best ${Math.min(...costs).toFixed(2)} µs CPU per entry (runs: ${costs.map((c) => c.toFixed(2)).join(", ")})`,
);
await handle.remove();
