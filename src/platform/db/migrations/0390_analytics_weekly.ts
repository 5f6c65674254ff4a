import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/**
 * Weekly visitor sketches per project × week × channel (weeks start on Monday, UTC), so a period's
 * distinct visitors merge one sketch per full week and per edge day instead of one per day.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("analytics_weekly")
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("week", "integer", (c) => c.notNull())
    .addColumn("channel", "text", (c) => c.notNull())
    .addColumn("visitors_sketch", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("analytics_weekly_pk", ["project_id", "week", "channel"])
    .execute();
}
