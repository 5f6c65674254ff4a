/**
 * PostHog's batch API (/batch/) against Lift's own batch format (POST /api/events) and Segment's
 * (/v1/batch): the same events, 100 a request, into the same Lift (as built: every module's event
 * processors) in one run. PostHog's side is what posthog-node sends (`api_key`, `batch` of captures
 * with a unique uuid, distinct_id, timestamp, the library's properties, `sent_at`), uncompressed as
 * the Segment side is; its events carry `$current_url` and `$referrer` as Lift's carry url and
 * referrer. All are server events (no session). Rounds rotate which load goes first; each round's
 * ratio is the format's events/s over Lift's, and the figure is the median ratio (target >= 0.8).
 * The server's CPU time per round is read too (/proc/<pid>/stat): events per CPU second of the
 * server is the steadier figure on a shared machine.
 *
 * Run: npx tsx bench/events/posthog-batch.bench.ts
 *   BENCH_ROUNDS=5, BENCH_SECONDS=5, BENCH_CONNECTIONS=8, BENCH_VISITORS=20000
 */
import path from "node:path";
import SQLite from "better-sqlite3";
import { LIFT_NODE_ARGS, median, startNode } from "../lib/servers.js";
import { runFormatRounds } from "./format-rounds.js";
import { PER_REQUEST, VISITORS, eventOf, liftBodies, segmentBodies } from "./segment-bodies.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const POOL = 200;

/**
 * posthog-node's batch: every request needs its own uuids (a repeat would be deduplicated, not
 * stored), so each pooled body is kept in parts around them and joined with the request's number.
 */
function postHogBodies(key: string): { body: () => string; sent: () => number } {
  const MARK = "@REQUEST@";
  const pool = Array.from({ length: POOL }, (_, b) =>
    JSON.stringify({
      api_key: key,
      batch: Array.from({ length: PER_REQUEST }, (_, j) => {
        const e = eventOf(b * PER_REQUEST + j);
        return {
          distinct_id: e.visitorId,
          event: e.type,
          properties: {
            ...e.data,
            $current_url: e.url,
            ...(e.referrer ? { $referrer: e.referrer } : {}),
            $lib: "posthog-node",
            $lib_version: "5.70.0",
            $geoip_disable: true,
          },
          type: "capture",
          library: "posthog-node",
          library_version: "5.70.0",
          timestamp: e.timestamp,
          uuid: `0195${MARK}-${j}`,
        };
      }),
      sent_at: new Date().toISOString(),
    }).split(MARK),
  );
  let n = 0;
  return {
    body: () => {
      const i = n++;
      return pool[i % POOL]!.join(String(i));
    },
    sent: () => n,
  };
}

/** Keyed messages stored (SQLite's log of claimed ids: a row per request). */
function storedMessageIds(dataDir: string): number {
  const db = new SQLite(path.join(dataDir, "lift.db"), { readonly: true });
  const q = "select coalesce(sum(json_array_length(message_ids)), 0) as n from segment_message_log";
  const n = Number((db.prepare(q).get() as { n: number }).n);
  db.close();
  return n;
}

const lift = await startNode("bench/events/lift-server.ts", {}, "/healthz", LIFT_NODE_ARGS);
try {
  const key = /public key:\s+(\S+)/.exec(lift.output())?.[1];
  if (!key) throw new Error(`no public key printed: ${lift.output()}`);
  const segment = segmentBodies();
  const posthog = postHogBodies(key);
  const formats: { name: string; url: string; body: () => string; headers: Record<string, string> }[] = [
    {
      name: "Lift batch format (/api/events)",
      url: `${lift.base}/api/events`,
      body: liftBodies(key),
      headers: {},
    },
    {
      name: "Segment batch (/v1/batch)",
      url: `${lift.base}/v1/batch`,
      body: segment.body,
      headers: { authorization: `Basic ${Buffer.from(`${key}:`).toString("base64")}` },
    },
    { name: "PostHog batch (/batch/)", url: `${lift.base}/batch/`, body: posthog.body, headers: {} },
  ];
  const { got, perCpu, acknowledged, bytes } = await runFormatRounds(formats, {
    pid: lift.child.pid!,
    rounds: ROUNDS,
    seconds: SECONDS,
    connections: CONNECTIONS,
    perRequest: PER_REQUEST,
  });
  // Every Segment and PostHog request carried new ids: each acknowledged event is stored once.
  const stored = storedMessageIds(lift.dataDir);
  const sent = (segment.sent() + posthog.sent()) * PER_REQUEST;
  const acked = formats.slice(1).reduce((n, f) => n + (acknowledged.get(f.name) ?? 0), 0) * PER_REQUEST;
  if (stored < acked || stored > sent)
    throw new Error(`keyed events: ${stored} stored, ${acked} acknowledged, ${sent} built`);
  const eps = got.map((rs) => rs.map((x) => x.rps * PER_REQUEST));
  const ratio = (of: number[][], i: number) => of[i]!.map((s, r) => s / of[0]![r]!);
  for (let i = 0; i < formats.length; i++)
    console.log(
      `${formats[i]!.name.padEnd(32)} events/s ${eps[i]!.map((x) => x.toFixed(0)).join(" / ")}  median ${median(eps[i]!).toFixed(0)}  p50 ${median(got[i]!.map((x) => x.p50))} ms; per server CPU second median ${median(perCpu[i]!).toFixed(0)}`,
    );
  for (let i = 1; i < formats.length; i++) {
    const events = ratio(eps, i);
    const cpu = ratio(perCpu, i);
    console.log(
      `${formats[i]!.name} / Lift format: events/s per round ${events.map((x) => x.toFixed(2)).join(" / ")}  median ratio ${median(events).toFixed(2)} (target >= 0.8); per server CPU second median ${median(cpu).toFixed(2)}`,
    );
  }
  console.log(
    `SQLite, ${ROUNDS} rounds x ${SECONDS} s, ${PER_REQUEST} events per request, ${CONNECTIONS} connections, ${VISITORS} visitors; bytes per event ${bytes.join(" / ")}; ${stored} keyed events stored, ${acked} acknowledged`,
  );
} finally {
  await lift.stop();
}
