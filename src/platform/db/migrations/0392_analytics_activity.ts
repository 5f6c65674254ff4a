import { type Kysely, sql } from "kysely";
import type { Dialect } from "../index.js";

/**
 * Retention reads who did what on which day, not every event: `analytics_activity` holds one row
 * per project × UTC day × event type × visitor (bots left out), written by the analytics processor
 * the first time it sees the key (its memory dedupes, so a repeat after a restart is possible and
 * readers treat rows as a set). Rows append in day order: the (project, day) index grows at its
 * end, so a flush dirties few pages. Existing events are folded in here.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("analytics_activity")
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("day", "integer", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("visitor_id", "text", (c) => c.notNull())
    .execute();
  await sql`insert into analytics_activity (project_id, day, type, visitor_id)
    select distinct project_id, cast(ts / 86400000 as integer), type, visitor_id from events
    where is_bot = 0 and visitor_id <> '' order by 1, 2`.execute(db);
  await db.schema
    .createIndex("analytics_activity_day")
    .on("analytics_activity")
    .columns(["project_id", "day"])
    .execute();
}
