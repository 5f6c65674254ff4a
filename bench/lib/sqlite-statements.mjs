/**
 * Preload for a SQLite server under a benchmark: times every better-sqlite3 statement by its SQL,
 * in two windows of the process's life (seconds; default "150,300": before 150 s and after 300 s),
 * and writes the 40 costliest of the late window, with the early window beside them, to
 * /tmp/sqlite-statements-<pid>.txt at exit. A statement whose time per call grows between the
 * windows grows with the data. For example:
 *
 *   BENCH_CONFIGS=sqlite-1 BENCH_SECONDS=330 \
 *     BENCH_NODE_ARGS="--import ./bench/lib/sqlite-statements.mjs" \
 *     npx tsx bench/platform/mixed-load.bench.ts
 */
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const Database = require("better-sqlite3");
const [earlyEnd, lateStart] = (process.env.SQLITE_STATEMENTS_SPLIT ?? "150,300").split(",").map(Number);
const started = performance.now();
const windows = [new Map(), new Map()];

const prepare = Database.prototype.prepare;
Database.prototype.prepare = function (source, ...rest) {
  const statement = prepare.call(this, source, ...rest);
  const key = source.trim().replace(/\s+/g, " ").slice(0, 110);
  for (const method of ["run", "all", "get"]) {
    const call = statement[method];
    statement[method] = function (...args) {
      const t0 = performance.now();
      try {
        return call.apply(this, args);
      } finally {
        const t1 = performance.now();
        const at = (t1 - started) / 1000;
        const w = at < earlyEnd ? windows[0] : at > lateStart ? windows[1] : null;
        if (w) {
          const s = w.get(key) ?? { n: 0, ms: 0 };
          s.n++;
          s.ms += t1 - t0;
          w.set(key, s);
        }
      }
    };
  }
  return statement;
};

process.on("exit", () => {
  const none = { n: 0, ms: 0 };
  const keys = new Set([...windows[0].keys(), ...windows[1].keys()]);
  const rows = [...keys].map((k) => [k, windows[0].get(k) ?? none, windows[1].get(k) ?? none]);
  rows.sort((a, b) => b[2].ms - a[2].ms);
  const per = (s) => (s.ms / Math.max(s.n, 1)).toFixed(3);
  const lines = rows
    .slice(0, 40)
    .map(
      ([k, a, b]) =>
        `${String(a.n).padStart(8)} ${per(a).padStart(8)} ms | ${String(b.n).padStart(8)} ${per(b).padStart(8)} ms  ${k}`,
    );
  const head = `calls and ms per call before ${earlyEnd} s | after ${lateStart} s`;
  writeFileSync(`/tmp/sqlite-statements-${process.pid}.txt`, `${head}\n${lines.join("\n")}\n`);
});
