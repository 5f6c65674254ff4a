import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import SQLite from "better-sqlite3";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { isPostgres, loadConfig } from "../../../config.js";
import { migrateToLatest } from "../migrate.js";
import { ensureMonthlyPartitions } from "../partitions.js";
import { type CopyOptions, claimTables, copyTable, finishTarget } from "./copy.js";
import { carryMessageIds } from "./message-ids.js";
import { tableProgress } from "./progress.js";
import { type Plan, Refusal, buildPlan, checkSourceMigrations, quote } from "./schema.js";
import { type TableCheck, formatReport, verifyTable } from "./verify.js";

export const USAGE = `usage: lift migrate-to-postgres [--from <sqlite file>] [--to <postgres url>] [options]

Copies an embedded SQLite database into an empty PostgreSQL database, then verifies every table
(row counts and SHA-256 over the rows in key order on both sides). Stop the server first.

  --from <file>       the SQLite file (default: the app's, $DATA_DIR/lift.db)
  --to <url>          postgres://user:pass@host:5432/db (default: $DATABASE_URL)
  --chunk-size <n>    rows per insert statement (default 5000)
  --verify-only       compare the two databases without copying
  -h, --help          this text

A run that stops (killed, connection lost) resumes where it stopped when run again.
Exit status: 0 verified; 1 verification found differences; 2 refused or failed.`;

/** Every value as the server's text: exact for int8 and float8, and what the checksum hashes. */
const TEXT_TYPES = { getTypeParser: () => (v: string) => v } as unknown as pg.CustomTypesConfig;

/** `lift migrate-to-postgres`: returns the exit status. */
export async function migrateToPostgres(argv: string[]): Promise<number> {
  const { values: args } = parseArgs({
    args: argv,
    options: {
      from: { type: "string" },
      to: { type: "string" },
      "chunk-size": { type: "string" },
      "verify-only": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  // A placeholder key: loadConfig would otherwise create data/secret.key, and none is needed here.
  const from = args.from ?? loadConfig(process.env, { secretKey: "unused" }).sqlitePath;
  const to = args.to ?? process.env.DATABASE_URL;
  const chunkRows = Number(args["chunk-size"] ?? 5000);
  if (!to || !isPostgres({ databaseUrl: to }))
    return usageError("--to (or DATABASE_URL) must be a postgres:// URL");
  if (!Number.isInteger(chunkRows) || chunkRows < 1)
    return usageError("--chunk-size must be a positive integer");
  if (!existsSync(from)) {
    process.stderr.write(`no SQLite file at ${from} (--from, or DATA_DIR for the app's)\n`);
    return 2;
  }

  // Read-only: the source is never written, whatever happens to this run.
  const sqlite = new SQLite(from, { readonly: true, fileMustExist: true });
  const client = new pg.Client({ connectionString: to, types: TEXT_TYPES });
  try {
    await checkSourceMigrations(sqlite);
    await client.connect();
    process.stderr.write(`source ${from}\ntarget ${redact(to)}\n`);
    if (!args["verify-only"]) {
      await lockTarget(client);
      await migrateTarget(to, client);
    } else if ((await client.query("select to_regclass('kysely_migration') as t")).rows[0].t === null) {
      throw new Refusal("the target has no Lift tables: run without --verify-only to copy first");
    }
    const plan = await buildPlan(sqlite, client);
    const width = Math.max(...plan.tables.map((t) => t.name.length)) + 7;
    if (!args["verify-only"]) {
      const pauseMs = Number(process.env.LIFT_COPY_PAUSE_MS ?? 0);
      await copyAll(sqlite, client, plan, { chunkRows, pauseMs }, width);
    }
    const checks = await verifyAll(sqlite, client, plan, width);
    process.stdout.write(formatReport(checks, plan));
    return checks.every((c) => c.ok) ? 0 : 1;
  } catch (err) {
    if (!(err instanceof Refusal)) throw err;
    process.stderr.write(`refused: ${err.message}\n`);
    return 2;
  } finally {
    sqlite.close();
    await client.end().catch(() => {});
  }
}

function usageError(message: string): number {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  return 2;
}

const redact = (url: string) => url.replace(/(\/\/[^:/@]+):[^@]*@/, "$1:***@");

/**
 * One copy per target at a time: a second run would read the same progress rows and insert the
 * same chunk twice. Session-level, so the lock goes with the connection; a killed run's backend may
 * take a moment to notice its client is gone, hence a wait rather than a try.
 */
async function lockTarget(client: pg.Client): Promise<void> {
  await client.query("set lock_timeout = '15s'");
  try {
    await client.query("select pg_advisory_lock(hashtext('lift:migrate-to-postgres'))");
  } catch (err) {
    if ((err as { code?: string }).code !== "55P03") throw err;
    throw new Refusal("another migrate-to-postgres run holds this target (waited 15 s)");
  } finally {
    await client.query("reset lock_timeout");
  }
}

/** The app's own migrations, so the target has the PostgreSQL shape of every table. */
async function migrateTarget(url: string, client: pg.Client): Promise<void> {
  const { rows } = await client.query<{ schema: string }>("select current_schema() as schema");
  const db = new Kysely<unknown>({
    dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }),
  });
  try {
    await migrateToLatest(db, "postgres", rows[0]!.schema);
  } finally {
    await db.destroy();
  }
}

/**
 * Every table not yet done, inside one SQLite read transaction: one snapshot of the source for
 * the whole run. `data_version` changes when another connection commits, which tells a server
 * still writing to the file apart from a quiet one.
 */
async function copyAll(
  sqlite: SQLite.Database,
  client: pg.Client,
  plan: Plan,
  opts: CopyOptions,
  width: number,
): Promise<void> {
  const version = sqlite.pragma("data_version", { simple: true });
  const began = performance.now();
  let rowsThisRun = 0;
  sqlite.exec("begin");
  try {
    const counts = new Map(
      plan.tables.map((t) => [
        t.name,
        Number(
          sqlite
            .prepare(`select count(*) from ${quote(t.name)}`)
            .pluck()
            .get(),
        ),
      ]),
    );
    const progress = await claimTables(client, plan, counts);
    await eventPartitions(sqlite, client);
    for (const t of plan.tables) {
      const p = progress.get(t.name)!;
      if (p.done) continue;
      const start = p.rowsCopied;
      const bar = tableProgress(t.name, counts.get(t.name)!, start, width);
      let copied = start;
      try {
        await copyTable(sqlite, client, t, p, opts, (n) => {
          copied = n;
          bar.update(n);
        });
      } finally {
        // also on a failure: the bar's line ends before the error, saying how far the table got
        bar.finish();
        rowsThisRun += copied - start;
      }
    }
    const keys = await carryMessageIds(sqlite, client, opts.chunkRows, width);
    if (keys > 0)
      process.stderr.write(
        `carried ${keys} Segment messageIds (an SDK retry of a message sent before the move stays a duplicate)\n`,
      );
  } finally {
    sqlite.exec("commit");
  }
  await finishTarget(client, plan);
  const s = (performance.now() - began) / 1000;
  process.stderr.write(
    `copied ${rowsThisRun} rows in ${s.toFixed(1)} s (${Math.round(rowsThisRun / s)} rows/s)\n`,
  );
  if (sqlite.pragma("data_version", { simple: true }) !== version)
    process.stderr.write("warning: the source was written during the copy: is the server still running?\n");
}

/**
 * PostgreSQL's `events` is partitioned by month (migration 0304), which made only this month's
 * partitions and the next: the source's older (or later) months get theirs before the copy.
 */
async function eventPartitions(sqlite: SQLite.Database, client: pg.Client): Promise<void> {
  const span = sqlite
    .prepare("select min(received_at) as first, max(received_at) as last from events")
    .get() as {
    first: number | null;
    last: number | null;
  };
  if (span.first === null || span.last === null) return;
  await ensureMonthlyPartitions(
    (text) => client.query(text),
    "events",
    Number(span.first),
    Number(span.last),
  );
}

/** Both sides read at one moment each: SQLite in a read transaction, PostgreSQL in a snapshot. */
async function verifyAll(
  sqlite: SQLite.Database,
  client: pg.Client,
  plan: Plan,
  width: number,
): Promise<TableCheck[]> {
  const checks: TableCheck[] = [];
  sqlite.exec("begin");
  await client.query("begin isolation level repeatable read read only");
  try {
    for (const t of plan.tables) {
      const total = Number(
        sqlite
          .prepare(`select count(*) from ${quote(t.name)}`)
          .pluck()
          .get(),
      );
      const bar = tableProgress(`verify ${t.name}`, total, 0, width, true);
      checks.push(await verifyTable(sqlite, client, t, (n) => bar.update(n)));
      bar.finish();
    }
  } finally {
    await client.query("commit");
    sqlite.exec("commit");
  }
  return checks;
}
