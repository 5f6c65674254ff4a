import type SQLite from "better-sqlite3";
import { type RawBuilder, sql } from "kysely";
import { type Trx, isPostgresDb } from "./db/index.js";
import { preparedOn } from "./db/statements.js";

/**
 * A per-project configuration version, so that no cached copy of configuration decides what the
 * events pipeline stores (docs/decisions/events.md "Configuration the events pipeline reads").
 *
 * - Every change to configuration that event processors read (conversion goals; experiments'
 *   status, variants and goal lists) calls `bumpConfigVersion` in its own transaction, before it
 *   reads or writes anything else there.
 * - Each events transaction reads the versions of its projects once (`readConfigVersions`), on
 *   PostgreSQL `FOR SHARE`, before any processor reads configuration; a processor's cache entry is
 *   used only while its version is the one read, else reloaded inside that transaction.
 *
 * PostgreSQL (READ COMMITTED): a change takes the project's configuration lock exclusively
 * (`bumpConfigVersion`), an events transaction shares it (`readConfigVersions`, before its row
 * lock), so whichever comes second waits for the other to end. If the events transaction locked
 * first, the change commits after it; if the change came first, the shared lock is granted once
 * the change committed, and the version read returns the changed row. Shared locks do not
 * conflict with each other: ingest processes never wait for one another here.
 * The lock is an advisory lock, not only the version row's `FOR SHARE`, because its queue is fair:
 * a shared request waits behind a waiting change. Row share locks are granted past a waiting
 * update while any other is held, so under steady ingest (flushes of several processes
 * overlapping) a change would wait for a gap (docs/decisions/events.md). The read keeps `FOR SHARE`, which also orders it against a change
 * made by a process of the previous release during a rolling deploy.
 *
 * SQLite has one writer: an events transaction reads after its first write, with every committed
 * change visible and no other commit possible until its own.
 */
export interface ConfigVersionRow {
  project_id: string;
  version: number;
}

declare module "./db/types.js" {
  interface Database {
    project_config_versions: ConfigVersionRow;
  }
}

/** First half of the configuration lock's advisory key; the second is `hashtext(project id)`. */
const CONFIG_LOCK_CLASS = 0x4c696674; // "Lift"

/** Marks the project's configuration changed; call first in the transaction that changes it. */
export async function bumpConfigVersion(trx: Trx, projectId: string): Promise<void> {
  if (isPostgresDb(trx))
    await sql`select pg_advisory_xact_lock(${CONFIG_LOCK_CLASS}::integer, hashtext(${projectId}))`.execute(
      trx,
    );
  await trx
    .insertInto("project_config_versions")
    .values({ project_id: projectId, version: 1 })
    .onConflict((oc) =>
      oc.column("project_id").doUpdateSet({ version: sql`project_config_versions.version + 1` }),
    )
    .execute();
}

const SELECT_SQLITE = "select version from project_config_versions where project_id = ?";

interface ReadOptions {
  /** SQLite: the raw connection under `trx`, for a prepared statement on the hot path */
  sqlite?: SQLite.Database;
  /** PostgreSQL: a statement of the transaction to run in the same one as the read */
  along?: RawBuilder<unknown>;
}

/**
 * The configuration version of each project (0 for a project never changed), read inside an
 * events transaction before any configuration.
 *
 * PostgreSQL: the read shares the projects' configuration locks first, in project order (so two
 * transactions cannot each hold one and wait behind a change of the other's), in the same
 * statement: an uncorrelated subquery in the filter runs once, before the first row is locked.
 * The statement's snapshot may predate a change it waited for; `FOR SHARE` then locks and returns
 * the row as that change committed it (READ COMMITTED rechecks a row updated since the snapshot).
 */
export async function readConfigVersions(
  trx: Trx,
  projectIds: string[],
  opts: ReadOptions = {},
): Promise<Map<string, number>> {
  const { sqlite, along } = opts;
  const out = new Map<string, number>();
  if (projectIds.length === 0) return out;
  if (sqlite && !isPostgresDb(trx)) {
    // Rows, not pluck(): the statement is shared by its text, and pluck would change it for all.
    const select = preparedOn(sqlite, SELECT_SQLITE);
    for (const id of projectIds)
      out.set(id, Number((select.get(id) as ConfigVersionRow | undefined)?.version ?? 0));
    return out;
  }
  if (!isPostgresDb(trx)) {
    // SQLite without its raw handle (tests that run processors through Kysely alone)
    const rows = await trx
      .selectFrom("project_config_versions")
      .select(["project_id", "version"])
      .where("project_id", "in", projectIds)
      .execute();
    for (const id of projectIds) out.set(id, 0);
    for (const r of rows) out.set(r.project_id, Number(r.version));
    return out;
  }
  const lock = async (ids: string[], withStatement?: RawBuilder<unknown>) => {
    const sorted = [...new Set(ids)].sort();
    const select = sql<ConfigVersionRow>`select project_id, version from project_config_versions
      where project_id in (${sql.join(sorted)})
        and (select count(pg_advisory_xact_lock_shared(${CONFIG_LOCK_CLASS}::integer, hashtext(id))::text)
          from unnest(${sorted}::text[]) as id) >= 0
      for share`;
    const query = withStatement ? sql<ConfigVersionRow>`with along as (${withStatement}) ${select}` : select;
    return (await query.execute(trx)).rows;
  };
  // `along` (a data-modifying statement of the same transaction, e.g. the flush's events insert)
  // runs in the same statement: one round trip instead of two.
  const rows = await lock(projectIds, along);
  for (const r of rows) out.set(r.project_id, Number(r.version));
  const missing = projectIds.filter((id) => !out.has(id)).sort();
  if (missing.length > 0) {
    // A share lock needs a row: create it once per project (a concurrent bump or insert of the same
    // row waits for this transaction, which keeps the order), in one order across processes.
    await trx
      .insertInto("project_config_versions")
      .values(missing.map((id) => ({ project_id: id, version: 0 })))
      .onConflict((oc) => oc.column("project_id").doNothing())
      .execute();
    for (const r of await lock(missing)) out.set(r.project_id, Number(r.version));
  }
  return out;
}

/**
 * A per-process cache of one kind of project configuration, valid for exactly one configuration
 * version: an events transaction passes the version it read, and a different one reloads.
 */
export class VersionedCache<T> {
  private entries = new Map<string, { version: number; value: T }>();
  constructor(private max = 10_000) {}

  async get(projectId: string, version: number, load: () => Promise<T>): Promise<T> {
    const hit = this.entries.get(projectId);
    if (hit && hit.version === version) return hit.value;
    const value = await load();
    if (this.entries.size >= this.max) this.entries.clear();
    this.entries.set(projectId, { version, value });
    return value;
  }
}
