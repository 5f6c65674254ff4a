/**
 * Segment's batch API against Lift's own batch format: the same events, 100 a request, into the
 * same Lift (as built: every module's event processors) in one run. Segment's side is what
 * @segment/analytics-node sends (`track` calls with a unique messageId, timestamp, context with
 * the library and page, integrations, _metadata: ~2.4 times the bytes of Lift's format); Lift's
 * side is the batch format of POST /api/events with the same type, visitor, URL, referrer, data and
 * timestamp. Both are server events (no session). A third load sends lean Segment messages (only
 * what Lift reads: type, event, anonymousId, properties, timestamp, messageId, context.page), which
 * separates the mapping and dedup from parsing the SDK's larger messages. Rounds rotate which
 * load goes first; each round's ratio is Segment / Lift format, and the figure is the median ratio
 * (target >= 0.9). On a shared machine
 * the events/s swing with other processes' load, so the server's own CPU time per round is read
 * too (/proc/<pid>/stat): events per CPU second of the server is the steadier figure.
 *
 * Run: npx tsx bench/events/segment-batch.bench.ts
 *   BENCH_ROUNDS=5, BENCH_SECONDS=5, BENCH_CONNECTIONS=8, BENCH_VISITORS=20000,
 *   BENCH_PG_URL=postgres://… to run on a fresh PostgreSQL database instead of SQLite,
 *   BENCH_LIFT_ONLY=1 for Lift's format alone (copied into an older checkout: before/after figures)
 */
import path from "node:path";
import SQLite from "better-sqlite3";
import pg from "pg";
import { compareWithRecorded } from "../lib/recorded.js";
import { LIFT_NODE_ARGS, median, startNode } from "../lib/servers.js";
import { runFormatRounds } from "./format-rounds.js";
import { PER_REQUEST, VISITORS, liftBodies, segmentBodies } from "./segment-bodies.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const PG_URL = process.env.BENCH_PG_URL;
const LIFT_ONLY = process.env.BENCH_LIFT_ONLY === "1";

/** Segment messages stored: their messageIds (PostgreSQL: a row each; SQLite: its log, a row per request). */
async function storedMessageIds(dataDir: string, databaseUrl: string | undefined): Promise<number> {
  if (databaseUrl) {
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    const { rows } = await c.query("select count(*) as n from segment_message_ids");
    await c.end();
    return Number(rows[0].n);
  }
  const db = new SQLite(path.join(dataDir, "lift.db"), { readonly: true });
  const q = "select coalesce(sum(json_array_length(message_ids)), 0) as n from segment_message_log";
  const n = Number((db.prepare(q).get() as { n: number }).n);
  db.close();
  return n;
}

let database: string | undefined;
const admin = PG_URL ? new pg.Client({ connectionString: PG_URL }) : undefined;
const env: NodeJS.ProcessEnv = {};
if (admin && PG_URL) {
  await admin.connect();
  database = `bench_segment_${process.pid}`;
  await admin.query(`create database ${database}`);
  const url = new URL(PG_URL);
  url.pathname = `/${database}`;
  env.DATABASE_URL = url.toString();
}
const lift = await startNode("bench/events/lift-server.ts", env, "/healthz", LIFT_NODE_ARGS);
try {
  const key = /public key:\s+(\S+)/.exec(lift.output())?.[1];
  if (!key) throw new Error(`no public key printed: ${lift.output()}`);
  const auth = { authorization: `Basic ${Buffer.from(`${key}:`).toString("base64")}` };
  const segment = segmentBodies();
  const lean = segmentBodies(true);
  const all = [
    {
      name: "Lift batch format (/api/events)",
      url: `${lift.base}/api/events`,
      body: liftBodies(key),
      headers: {} as Record<string, string>,
    },
    { name: "Segment batch (/v1/batch)", url: `${lift.base}/v1/batch`, body: segment.body, headers: auth },
    { name: "Segment batch, lean messages", url: `${lift.base}/v1/batch`, body: lean.body, headers: auth },
  ];
  const formats = LIFT_ONLY ? all.slice(0, 1) : all;
  const { got, perCpu, acknowledged, bytes } = await runFormatRounds(formats, {
    pid: lift.child.pid!,
    rounds: ROUNDS,
    seconds: SECONDS,
    connections: CONNECTIONS,
    perRequest: PER_REQUEST,
  });
  // Every Segment request carried new messageIds: each acknowledged message is stored, none
  // deduplicated away.
  const stored = LIFT_ONLY ? 0 : await storedMessageIds(lift.dataDir, env.DATABASE_URL);
  // Bodies built (some never sent: the size line below, and each connection's next request when a
  // load ends) bound it from above; messages in acknowledged requests from below.
  const sent = (segment.sent() + lean.sent()) * PER_REQUEST;
  const acked = formats.slice(1).reduce((n, f) => n + (acknowledged.get(f.name) ?? 0), 0) * PER_REQUEST;
  if (stored < acked || stored > sent)
    throw new Error(`Segment: ${stored} messages stored, ${acked} acknowledged, ${sent} built`);
  const eps = got.map((rs) => rs.map((x) => x.rps * PER_REQUEST));
  const ratio = (of: number[][], i: number) => of[i]!.map((s, r) => s / of[0]![r]!);
  for (let i = 0; i < formats.length; i++) {
    console.log(
      `${formats[i]!.name.padEnd(32)} events/s ${eps[i]!.map((x) => x.toFixed(0)).join(" / ")}  median ${median(eps[i]!).toFixed(0)}  p50 ${median(got[i]!.map((x) => x.p50))} ms; per server CPU second ${perCpu[i]!.map((x) => x.toFixed(0)).join(" / ")}  median ${median(perCpu[i]!).toFixed(0)}`,
    );
  }
  for (let i = 1; i < formats.length; i++) {
    const events = ratio(eps, i);
    const cpu = ratio(perCpu, i);
    console.log(
      `${formats[i]!.name} / Lift format: events/s per round ${events.map((x) => x.toFixed(2)).join(" / ")}  median ratio ${median(events).toFixed(2)} (target >= 0.9); per server CPU second ${cpu.map((x) => x.toFixed(2)).join(" / ")}  median ${median(cpu).toFixed(2)}`,
    );
    if (!database) compareWithRecorded(`${formats[i]!.name} ÷ Lift batch format`, median(events));
  }
  console.log(
    `${database ? "PostgreSQL" : "SQLite"}, ${ROUNDS} rounds x ${SECONDS} s, ${PER_REQUEST} events per request, ${CONNECTIONS} connections, ${VISITORS} visitors; bytes per event ${bytes.join(" / ")}; ${stored} Segment messages stored, ${acked} acknowledged`,
  );
} finally {
  await lift.stop();
  if (database) await admin!.query(`drop database if exists ${database} with (force)`);
  await admin?.end();
}
