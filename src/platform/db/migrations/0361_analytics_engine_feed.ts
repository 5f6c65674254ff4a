import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/**
 * What the analytics engine (a DuckDB copy per process, analytics/engine/) reads to keep its copy:
 * - `analytics_links.changed_at`: when a link was written (receipt time, never backdated), so an
 *   engine takes new links after its cursor; 0 on links written before this migration (the first
 *   sync takes them all);
 * - `analytics_engine_changes`: what changed in rows the engine already copied — an erasure (whose
 *   rows to remove), a recount page (whose conversions and goal hits to take again), a deleted
 *   goal (whose hits to drop) — for every process's engine to apply; rows older than a day are
 *   deleted (every engine has long caught up), so erased ids do not outlive the erasure by more;
 * - an index on the goal hits by event, so the copy takes a page's hits (and an erasure removes
 *   them) without reading a project's hits whole.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable("analytics_links")
    .addColumn("changed_at", "bigint", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex("analytics_links_changed")
    .on("analytics_links")
    .columns(["changed_at"])
    .execute();
  await db.schema
    .createTable("analytics_engine_changes")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("analytics_engine_changes_at")
    .on("analytics_engine_changes")
    .columns(["at"])
    .execute();
  await db.schema
    .createIndex("analytics_goal_hits_event")
    .on("analytics_goal_hits")
    .columns(["event_id"])
    .execute();
}
