import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/**
 * Breakdowns. A touchpoint row is a session: it gains the session's dimensions, taken
 * from its first event (source, campaign, landing page, referrer domain; device, browser and OS
 * parsed from the User-Agent). Sessions stored before this migration keep nulls ("(none)").
 * Per project × dimension × UTC day × key, and per Monday-based week × key: a distinct-visitor
 * sketch, conversions and revenue (the channel rollups, 0390, keep counters daily only).
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  for (const column of ["source", "campaign", "landing_page", "referrer_domain", "device", "browser", "os"])
    await db.schema.alterTable("analytics_touchpoints").addColumn(column, "text").execute();
  await db.schema
    .createTable("analytics_breakdown_daily")
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("dimension", "text", (c) => c.notNull())
    .addColumn("day", "integer", (c) => c.notNull())
    .addColumn("key", "text", (c) => c.notNull())
    // Counters before the sketch: a dense sketch (4 KiB) spills to overflow pages, which SQLite
    // reads only for the columns asked for, so summing counters over many rows skips them.
    .addColumn("conversions", "integer", (c) => c.notNull())
    .addColumn("revenue", "double precision", (c) => c.notNull())
    .addColumn("visitors_sketch", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("analytics_breakdown_daily_pk", ["project_id", "dimension", "day", "key"])
    .execute();
  await db.schema
    .createTable("analytics_breakdown_weekly")
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("dimension", "text", (c) => c.notNull())
    .addColumn("week", "integer", (c) => c.notNull())
    .addColumn("key", "text", (c) => c.notNull())
    // Weekly counters too: a 90-day breakdown then sums ~18 rows per key instead of 90.
    .addColumn("conversions", "integer", (c) => c.notNull())
    .addColumn("revenue", "double precision", (c) => c.notNull())
    .addColumn("visitors_sketch", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("analytics_breakdown_weekly_pk", ["project_id", "dimension", "week", "key"])
    .execute();
}
