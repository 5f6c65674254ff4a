/**
 * How long a configuration change waits while events transactions keep sharing the project's
 * configuration lock (PostgreSQL), with the lock `readConfigVersions` and `bumpConfigVersion` take
 * (an advisory lock with a fair queue) against the version row's `FOR SHARE` alone (before).
 * Two clients take turns so that one always holds the shared lock (each holds it HOLD_MS, starting
 * HOLD_MS / 2 apart), as the flushes of several busy processes do.
 *
 *   npx tsx bench/platform/config-lock.bench.ts
 *   BENCH_ROUNDS=5, BENCH_HOLD_MS=20, BENCH_PG_URL=postgres://postgres@127.0.0.1:54329/postgres
 */
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import type { Database } from "../../src/platform/db/types.js";
import { bumpConfigVersion, readConfigVersions } from "../../src/platform/config-version.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const HOLD_MS = Number(process.env.BENCH_HOLD_MS ?? 20);
const GIVE_UP_MS = 10_000;
const PG_URL = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:54329/postgres";
const name = `bench_config_lock_${process.pid}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Scheme = "advisory (now)" | "row FOR SHARE (before)";

const admin = new pg.Client({ connectionString: PG_URL });
try {
  await admin.connect();
} catch (err) {
  console.log(`no PostgreSQL at ${PG_URL} (${(err as Error).message}); skipped`);
  process.exit(0);
}
await admin.query(`create database ${name}`);
const url = new URL(PG_URL);
url.pathname = `/${name}`;
const pool = new pg.Pool({ connectionString: url.toString(), max: 4 });
pool.on("error", () => {}); // an idle connection ended by the drop at the end
const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });

/** One round: two alternating share holders, a change after 50 ms; ms until the change commits. */
async function round(scheme: Scheme): Promise<number> {
  let stop = false;
  const shareOnce = () =>
    db.transaction().execute(async (trx) => {
      if (scheme === "advisory (now)") await readConfigVersions(trx, ["p"]);
      else
        await trx
          .selectFrom("project_config_versions")
          .select("version")
          .where("project_id", "=", "p")
          .forShare()
          .execute();
      await sleep(HOLD_MS);
    });
  const holder = async (offset: number) => {
    await sleep(offset);
    while (!stop) await shareOnce();
  };
  const holders = [holder(0), holder(HOLD_MS / 2)];
  await sleep(50);
  const t0 = performance.now();
  const change = db.transaction().execute(async (trx) => {
    if (scheme === "advisory (now)") await bumpConfigVersion(trx, "p");
    else
      await trx
        .updateTable("project_config_versions")
        .set((eb) => ({ version: eb("version", "+", 1) }))
        .where("project_id", "=", "p")
        .execute();
  });
  const waited = await Promise.race([
    change.then(() => performance.now() - t0),
    sleep(GIVE_UP_MS).then(() => GIVE_UP_MS),
  ]);
  stop = true;
  await Promise.all([...holders, change]);
  return waited;
}

try {
  await db.schema
    .createTable("project_config_versions")
    .addColumn("project_id", "text", (c) => c.primaryKey())
    .addColumn("version", "integer", (c) => c.notNull())
    .execute();
  await db.insertInto("project_config_versions").values({ project_id: "p", version: 0 }).execute();
  console.log(
    `${new Date().toISOString()} ${ROUNDS} rounds, two clients alternating ${HOLD_MS} ms share locks`,
  );
  for (const scheme of ["row FOR SHARE (before)", "advisory (now)"] as Scheme[]) {
    const waits: number[] = [];
    for (let i = 0; i < ROUNDS; i++) waits.push(await round(scheme));
    const sorted = [...waits].sort((a, b) => a - b);
    console.log(
      `${scheme.padEnd(24)} change waited ${waits.map((w) => w.toFixed(0)).join(" / ")} ms (median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(0)} ms)`,
    );
  }
} finally {
  await db.destroy();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.end();
}
