import { type MessagePort, parentPort, workerData } from "node:worker_threads";
import { DuckDBInstance, listValue } from "@duckdb/node-api";
import { isPostgres } from "../../../config.js";
import { type ReaderConfig, openReader } from "../../../platform/db/reader.js";
import { EngineCopy } from "./copy.js";
import { ENGINE_DDL, ENGINE_TABLES, ENGINE_VERSION } from "./ddl.js";
import type { EngineReply, EngineRequest } from "../../../platform/engine.js";
import { plainRows } from "./rows.js";

/**
 * The analytics engine's thread (started by client.ts): it alone opens the DuckDB file, keeps the
 * copy up (copy.ts) — in the background, and before every query, so a report sees each event
 * committed before it was asked — and answers queries, each on a connection of its own (DuckDB's
 * threads run them; this thread only hands rows back). Read workers reach it through ports.
 */

interface Data {
  path: string;
  memoryMb: number;
  threads: number;
  pollMs: number;
  reader: ReaderConfig;
  /** how many files to try when others hold the first (1: that file or fail) */
  slots?: number;
  /** a sync that has taken this many events is a catch-up: queries meanwhile are refused, not held */
  catchUpEvents?: number;
}

const data = workerData as Data;
const instance = await openSlot();

/**
 * DuckDB's file has one owner process. Processes sharing a DATA_DIR (several servers on one machine
 * over PostgreSQL) each take the first file not held by another — `analytics.duckdb`, then
 * `analytics-2.duckdb` … — and keep it across restarts, so a restart does not copy everything again.
 */
async function openSlot(): Promise<DuckDBInstance> {
  const options = {
    memory_limit: `${data.memoryMb}MB`,
    threads: String(data.threads),
    // DuckDB checkpoints when its WAL passes this: 16 MB by default, a checkpoint every few pages
    // of the copy. A checkpoint costs more as the file grows; fewer of them keep the copy's cost
    // per event from growing as much with the store. A restart replays at most this much WAL.
    checkpoint_threshold: "64MB",
  };
  for (let slot = 1; ; slot++) {
    const file = slot === 1 ? data.path : data.path.replace(/\.duckdb$/, `-${slot}.duckdb`);
    try {
      return await DuckDBInstance.create(file, options);
    } catch (err) {
      if (slot >= (data.slots ?? 1) || !/lock/i.test((err as Error).message)) throw err;
    }
  }
}
const writer = await instance.connect();
await createTables(await isOtherVersion());
const store = openReader(data.reader, 1);
let copy = new EngineCopy(writer, store.db, isPostgres(data.reader));
await copy.open();

/** Whether the file holds a copy of another version (its tables are then made anew). */
async function isOtherVersion(): Promise<boolean> {
  const held = await writer.runAndReadAll(
    "select count(*) as n from information_schema.tables where table_name = 'engine_state'",
  );
  if (Number(held.getRowObjectsJS()[0]!.n) === 0) return false;
  const row = (
    await writer.runAndReadAll("select value from engine_state where name = 'version'")
  ).getRowObjectsJS()[0];
  return row?.value !== ENGINE_VERSION;
}

/** The tables (dropped first with `fresh`) and the version, in one transaction. */
async function createTables(fresh: boolean): Promise<void> {
  await writer.run("begin");
  if (fresh) for (const table of ENGINE_TABLES) await writer.run(`drop table if exists ${table}`);
  for (const ddl of ENGINE_DDL) await writer.run(ddl);
  await writer.run("insert or replace into engine_state values ('version', $1)", [ENGINE_VERSION]);
  await writer.run("commit");
}

/** One sync at a time; `fresh()` waits for one that started after it was called. */
let running: Promise<number> | null = null;
let queued: Promise<number> | null = null;
/** Events the running sync has taken so far. */
let taking = 0;
function start(): Promise<number> {
  taking = 0;
  const p = copy
    .sync((events) => {
      taking = events;
      if (taking >= CATCH_UP_EVENTS) for (const refuse of waiting) refuse();
    })
    .finally(() => {
      if (running === p) running = null;
    });
  running = p;
  return p;
}

/**
 * Whether the copy is catching up with a backlog (the first start over a large store, an
 * upgrade's rebuild): a query would wait for all of it, past any caller's deadline, so it is
 * refused at once with when to ask again. A sync of ordinary traffic is a page or two.
 */
const CATCH_UP_EVENTS = data.catchUpEvents ?? 100_000;
class CatchingUp extends Error {}
const catchingUp = () =>
  new CatchingUp(
    `catching up with the stored events (${taking.toLocaleString("en-US")} copied so far); reports answer once it has`,
  );
/** Queries waiting for a sync, refused as soon as it turns out to be a catch-up. */
const waiting = new Set<() => void>();

/** Every event committed before the call is in the copy, unless that means a catch-up: CatchingUp. */
function freshOrRefused(): Promise<void> {
  if (running && taking >= CATCH_UP_EVENTS) return Promise.reject(catchingUp());
  return new Promise<void>((resolve, reject) => {
    const refuse = () => reject(catchingUp());
    waiting.add(refuse);
    fresh()
      .then(() => resolve(), reject)
      .finally(() => waiting.delete(refuse));
  });
}
function fresh(): Promise<number> {
  if (!running) return start();
  queued ??= running
    .catch(() => 0)
    .then(() => {
      queued = null;
      return start();
    });
  return queued;
}

/**
 * Queries running now, each with its connection: closing interrupts them and waits for them to
 * end, since closing DuckDB under a running query aborts the process from a native thread.
 */
const inFlight = new Map<Promise<unknown>, { interrupt(): void }>();
let closing = false;

async function query(sql: string, params: unknown[]): Promise<Record<string, unknown>[]> {
  if (closing) throw new Error("the analytics engine is closing");
  await freshOrRefused();
  const c = await instance.connect();
  if (closing) {
    c.closeSync();
    throw new Error("the analytics engine is closing");
  }
  const run = answer(c, sql, params);
  inFlight.set(run, c);
  try {
    return await run;
  } finally {
    inFlight.delete(run);
  }
}

async function answer(
  c: Awaited<ReturnType<DuckDBInstance["connect"]>>,
  sql: string,
  params: unknown[],
): Promise<Record<string, unknown>[]> {
  try {
    // Arrays go as DuckDB lists (`in (select unnest($1::varchar[]))`); an empty one as null, whose
    // unnest is no row (DuckDB cannot type an empty list it is handed).
    const values = params.map((p) => (Array.isArray(p) ? (p.length === 0 ? null : listValue(p)) : p));
    const result = await c.runAndReadAll(sql, values as never);
    return plainRows(result.getRowObjectsJS());
  } finally {
    c.closeSync();
  }
}

/** The copy from scratch, in the sync slot (no other sync meanwhile; queries wait for it). */
async function rebuild(reply: (m: EngineReply) => void, id: number): Promise<void> {
  while (running) await running.catch(() => 0);
  const p = (async () => {
    await createTables(true);
    copy = new EngineCopy(writer, store.db, isPostgres(data.reader));
    await copy.open();
    taking = 0;
    return copy.sync((events) => {
      taking = events;
      if (taking >= CATCH_UP_EVENTS) for (const refuse of waiting) refuse();
      reply({ id, kind: "progress", events });
    });
  })().finally(() => {
    if (running === p) running = null;
  });
  running = p;
  reply({ id, kind: "done", value: await p });
}

function serve(port: MessagePort | typeof parentPort): void {
  port!.on("message", async (m: EngineRequest) => {
    const reply = (r: EngineReply) => port!.postMessage(r);
    try {
      if (m.kind === "query") reply({ id: m.id, kind: "done", value: await query(m.sql, m.params) });
      else if (m.kind === "sync") reply({ id: m.id, kind: "done", value: await fresh() });
      else if (m.kind === "rebuild") await rebuild(reply, m.id);
      else if (m.kind === "port") serve(m.port);
      else if (m.kind === "close") {
        clearInterval(timer);
        closing = true;
        for (const c of inFlight.values()) c.interrupt();
        await Promise.allSettled([...inFlight.keys()]);
        await (running ?? Promise.resolve()).catch(() => {});
        writer.closeSync();
        instance.closeSync();
        await store.close();
        reply({ id: m.id, kind: "done", value: null });
      }
    } catch (err) {
      const id = (m as { id: number }).id;
      const message = (err as Error).message ?? String(err);
      reply({ id, kind: "error", message, ...(err instanceof CatchingUp ? { retryAfter: 10 } : {}) });
    }
  });
}

const timer = setInterval(() => {
  if (!running) void start().catch(() => {});
}, data.pollMs);
serve(parentPort);
parentPort!.postMessage({ id: 0, kind: "ready" });
