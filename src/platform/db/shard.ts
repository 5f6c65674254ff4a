import { createHash } from "node:crypto";
import { hostname } from "node:os";
import { type Kysely, PostgresAdapter, PostgresDialect, type PostgresDialectConfig, sql } from "kysely";
import type { DbOrTrx, Dialect } from "./types.js";

/**
 * Counters that every event of a project adds to (rollups, attribution, experiment variants) are
 * kept per writer on PostgreSQL: each API process adds to rows of its own `shard` (part of their
 * key), so two processes' flushes never queue on one row's lock; reads sum (or merge) over the
 * rows. SQLite has one writer: the column is there (always 0) so queries are the same.
 */

/**
 * The shard a process tries first on PostgreSQL: 1–`count` from its host and port, so a restarted
 * process reuses its rows (the rows per key stay bounded). The app claims it for its lifetime
 * (shard-lease.ts), taking another when a live process holds it; a handle that claims nothing
 * (a command-line tool) writes this one. ROLLUP_SHARD sets it instead.
 */
export function rollupShard(port: number, host = hostname(), count = 15): number {
  return 1 + (createHash("sha256").update(`${host}:${port}`).digest().readUInt32BE(0) % count);
}

/** A sharded table's conflict key: with the shard on PostgreSQL, as its primary key is. */
export function rollupKey<C extends string>(columns: C[], postgres: boolean): (C | "shard")[] {
  return postgres ? [...columns, "shard"] : columns;
}

/**
 * PostgreSQL's adapter carrying this process's shard, so code in any module finds it from the
 * database handle or transaction it already has (`writerShard`).
 */
export class ShardedPostgresAdapter extends PostgresAdapter {
  /** set once the process's lease is claimed (shard-lease.ts), and again if it must be re-claimed */
  constructor(public shard: number) {
    super();
  }
}

/** PostgreSQL's dialect with the process's shard on its adapter. */
export class ShardedPostgresDialect extends PostgresDialect {
  constructor(
    config: PostgresDialectConfig,
    private readonly shard: number,
  ) {
    super(config);
  }

  override createAdapter(): ShardedPostgresAdapter {
    return new ShardedPostgresAdapter(this.shard);
  }
}

/** The shard this handle's process writes: its own on PostgreSQL, 0 on SQLite. */
export function writerShard(db: DbOrTrx): number {
  const adapter = db.getExecutor().adapter;
  return adapter instanceof ShardedPostgresAdapter ? adapter.shard : 0;
}

/** Migration step: `table` gets a `shard` column, which joins its primary key on PostgreSQL. */
export async function addShardToKey(
  db: Kysely<any>,
  dialect: Dialect,
  table: string,
  key: string[],
): Promise<void> {
  await db.schema
    .alterTable(table)
    .addColumn("shard", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  if (dialect !== "postgres") return;
  await sql`alter table ${sql.table(table)} drop constraint ${sql.id(`${table}_pk`)}`.execute(db);
  await sql`alter table ${sql.table(table)} add constraint ${sql.id(`${table}_pk`)} primary key (${sql.join(
    [...key, "shard"].map((c) => sql.id(c)),
  )})`.execute(db);
}
