/**
 * Preload for a server under a benchmark: times every PostgreSQL statement and Redis command
 * (from the call to its answer), and each flush from BEGIN to COMMIT, and writes the totals to
 * /tmp/round-trips-<pid>.txt when the process exits. For example:
 *
 *   BENCH_CONFIGS=pg-1 BENCH_NODE_ARGS="--import ./bench/lib/round-trips.mjs" \
 *     npx tsx bench/platform/scale-out.bench.ts
 *
 * A statement's time includes waiting for the event loop to take its answer (other requests'
 * work), which is the point: it is what a flush waits for.
 */
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const pg = require("pg");
const Redis = require("ioredis");
const stats = new Map();
const flush = { started: 0, open: false, total: 0, count: 0 };
const note = (key, ms) => {
  const s = stats.get(key) ?? { n: 0, ms: 0 };
  s.n++;
  s.ms += ms;
  stats.set(key, s);
};

const query = pg.Client.prototype.query;
pg.Client.prototype.query = function (q, ...rest) {
  const text = typeof q === "string" ? q : (q?.text ?? "?");
  const key = text.trim().replace(/\s+/g, " ").slice(0, 70);
  const t0 = performance.now();
  if (key === "begin") Object.assign(flush, { started: t0, open: true });
  const answer = query.call(this, q, ...rest);
  answer?.then?.(
    () => {
      const t1 = performance.now();
      note(key, t1 - t0);
      if (key === "commit" && flush.open) {
        flush.total += t1 - flush.started;
        flush.count++;
        flush.open = false;
      }
    },
    () => {},
  );
  return answer;
};

const send = Redis.prototype.sendCommand;
Redis.prototype.sendCommand = function (command, ...rest) {
  const t0 = performance.now();
  const sent = send.call(this, command, ...rest);
  command?.promise?.then(
    () => note(`redis ${command.name}`, performance.now() - t0),
    () => {},
  );
  return sent;
};

process.on("exit", () => {
  const rows = [...stats]
    .sort((a, b) => b[1].ms - a[1].ms)
    .map(([k, s]) => `${String(s.n).padStart(8)}  ${(s.ms / s.n).toFixed(3)} ms  ${k}`);
  const head = `transactions ${flush.count}, BEGIN to COMMIT ${(flush.total / Math.max(flush.count, 1)).toFixed(3)} ms on average\n   count  average  statement`;
  writeFileSync(`/tmp/round-trips-${process.pid}.txt`, `${head}\n${rows.join("\n")}\n`);
});
