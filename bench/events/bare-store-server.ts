/**
 * The floor of durable single-event ingest, for the single-event benchmark: a bare Fastify route
 * that parses the JSON, keeps the event as a row of Lift's 15 event columns in SQLite (WAL,
 * synchronous=NORMAL, as Lift opens it) in one transaction per turn of the event loop (group
 * commit, as Lift's writer does), and answers after the commit. No auth, sessions, identity,
 * rollups, sketches or secondary index: what any server that stores the event before it answers
 * pays on this machine. Lift above this floor is the product's own work.
 */
import path from "node:path";
import Database from "better-sqlite3";
import Fastify from "fastify";

const db = new Database(path.join(process.env.DATA_DIR ?? ".", "floor.db"));
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
db.exec(`create table events (
  seq integer primary key, id text not null, project_id text not null, visitor_id text not null,
  lead_id text, type text not null, url text, referrer text, data text, ts integer not null,
  received_at integer not null, session_id text, channel text, source text,
  is_bot integer not null, is_server integer not null)`);
const insert = db.prepare(
  "insert into events (id, project_id, visitor_id, lead_id, type, url, referrer, data, ts, received_at, session_id, channel, source, is_bot, is_server) values (?, 'p', ?, null, ?, ?, ?, ?, ?, ?, null, null, null, 0, 0)",
);

interface Event {
  type: string;
  visitorId: string;
  url?: string;
  referrer?: string;
  data?: unknown;
}
let pending: { event: Event; done: () => void }[] = [];
let seq = 0;
const flush = db.transaction((batch: typeof pending) => {
  const now = Date.now();
  for (const { event: e } of batch)
    insert.run(
      `e${++seq}`,
      e.visitorId,
      e.type,
      e.url ?? null,
      e.referrer ?? null,
      JSON.stringify(e.data ?? {}),
      now,
      now,
    );
});

const app = Fastify({ logger: false });
app.post("/api/events", (req) => {
  const event = req.body as Event;
  return new Promise<{ received: number }>((resolve) => {
    if (pending.length === 0)
      setImmediate(() => {
        const batch = pending;
        pending = [];
        flush(batch);
        for (const p of batch) p.done();
      });
    pending.push({ event, done: () => resolve({ received: 1 }) });
  });
});
app.get("/healthz", async () => ({ status: "ok" }));
await app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });
// A clean exit on SIGTERM, so `--cpu-prof` writes its profile (bench/events/profile-single.ts).
process.on("SIGTERM", () => process.exit(0));
