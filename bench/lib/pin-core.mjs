/**
 * Preload for a server under a benchmark: pins the process (every thread) to one CPU core, so that
 * it does not share that core with PostgreSQL or the load generator. For example, on 2 cores, with
 * the PostgreSQL processes pinned to core 1 (`for p in $(pgrep postgres); do taskset -a -cp 1 $p;
 * done`; new backends inherit it) and the load generator there too:
 *
 *   BENCH_NODE_ARGS="--import ./bench/lib/pin-core.mjs" taskset -c 1 \
 *     npx tsx bench/platform/scale-out.bench.ts
 *
 * BENCH_PIN_CORE picks the core (default 0). Needs `taskset` (util-linux).
 */
import { execFileSync } from "node:child_process";

const core = process.env.BENCH_PIN_CORE ?? "0";
execFileSync("taskset", ["-a", "-cp", core, String(process.pid)], { stdio: "ignore" });
