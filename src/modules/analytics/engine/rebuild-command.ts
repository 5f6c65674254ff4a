import path from "node:path";
import { parseArgs } from "node:util";
import { existsSync } from "node:fs";
import { isPostgres, loadConfig } from "../../../config.js";
import { tableProgress } from "../../../platform/db/migrate-to-postgres/progress.js";
import { openReader, readerConfigOf } from "../../../platform/db/reader.js";
import { AnalyticsEngine, engineFileOf } from "./client.js";

export const USAGE = `usage: lift analytics rebuild

Drops the analytics engine's copy ($DATA_DIR/analytics.duckdb) and copies every stored event into
it again, with the sessions, links, conversions and goal hits reports join them with. The server
keeps the copy current by itself; rebuild after restoring a backup of the database, or if a report
ever disagrees with the stored events. Stop the server first: the copy's file has one owner.

  -h, --help          this text

Settings as the server's: DATA_DIR, DATABASE_URL, ENGINE_MEMORY_MB, ENGINE_THREADS.
Exit status: 0 rebuilt; 2 refused or failed.`;

/** `lift analytics <subcommand>`: returns the exit status. */
export async function analyticsCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const { values: args } = parseArgs({ args: rest, options: { help: { type: "boolean", short: "h" } } });
  if (sub === "--help" || sub === "-h" || args.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (sub !== "rebuild") {
    process.stderr.write(`${sub ? `unknown subcommand: ${sub}\n\n` : ""}${USAGE}\n`);
    return 2;
  }
  // A placeholder key: loadConfig would otherwise create data/secret.key, and none is needed here.
  const config = loadConfig(process.env, { secretKey: "unused" });
  if (!isPostgres(config) && !existsSync(config.sqlitePath)) {
    process.stderr.write(`no database at ${config.sqlitePath} (DATA_DIR, or DATABASE_URL for PostgreSQL)\n`);
    return 2;
  }
  const reader = openReader(readerConfigOf(config), 1);
  const { rows } = await reader.db
    .selectFrom("events")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .execute()
    .then((r) => ({ rows: r }));
  await reader.close();
  const total = Number(rows[0]?.n ?? 0);
  const ext = path.extname(new URL(import.meta.url).pathname);
  let failure: unknown;
  const engine = new AnalyticsEngine(
    new URL(`./thread${ext}`, import.meta.url),
    { path: engineFileOf(config), ...config.engine, reader: readerConfigOf(config) },
    (err) => {
      failure = err;
    },
  );
  const began = performance.now();
  const progress = tableProgress("events", total, 0, 6);
  try {
    const taken = await engine.rebuild((n) => progress.update(n));
    progress.finish();
    const seconds = ((performance.now() - began) / 1000).toFixed(1);
    process.stdout.write(
      `rebuilt the analytics engine's copy: ${taken.toLocaleString("en")} events in ${seconds} s\n`,
    );
    return 0;
  } catch (err) {
    progress.finish();
    const message = (failure ?? err) instanceof Error ? ((failure ?? err) as Error).message : String(err);
    // DuckDB's lock: the server (or another rebuild) has the file open.
    if (/lock/i.test(message))
      process.stderr.write(`the engine's file ${engineFileOf(config)} is in use: stop the server first\n`);
    else process.stderr.write(`rebuild failed: ${message}\n`);
    return 2;
  } finally {
    await engine.close().catch(() => {});
  }
}
