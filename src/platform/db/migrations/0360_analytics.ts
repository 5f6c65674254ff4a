import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/**
 * Analytics: touchpoints (one row per session start), conversions, per-goal hits, and the daily
 * rollup per project × day × channel that the summary reads.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("analytics_touchpoints")
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("session_id", "text", (c) => c.notNull())
    .addColumn("visitor_id", "text", (c) => c.notNull())
    // The lead id once the visitor is linked, else the visitor id: the unit attribution credits.
    .addColumn("person_key", "text", (c) => c.notNull())
    .addColumn("channel", "text", (c) => c.notNull())
    .addColumn("ts", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("analytics_touchpoints_pk", ["project_id", "session_id"])
    .execute();
  await db.schema
    .createIndex("analytics_touchpoints_person")
    .on("analytics_touchpoints")
    .columns(["project_id", "person_key", "ts"])
    .execute();
  await db.schema
    .createIndex("analytics_touchpoints_visitor")
    .on("analytics_touchpoints")
    .columns(["project_id", "visitor_id"])
    .execute();

  await db.schema
    .createTable("analytics_conversions")
    .addColumn("event_id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("visitor_id", "text", (c) => c.notNull())
    .addColumn("person_key", "text", (c) => c.notNull())
    .addColumn("lead_id", "text")
    .addColumn("goal_id", "text")
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("revenue", "double precision", (c) => c.notNull())
    // Refunds ($revenue with negative revenue) carry revenue but do not count as conversions.
    .addColumn("counted", "integer", (c) => c.notNull())
    .addColumn("channel", "text", (c) => c.notNull())
    .addColumn("ts", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("analytics_conversions_time")
    .on("analytics_conversions")
    .columns(["project_id", "ts"])
    .execute();
  await db.schema
    .createIndex("analytics_conversions_visitor")
    .on("analytics_conversions")
    .columns(["project_id", "visitor_id"])
    .execute();

  await db.schema
    .createTable("analytics_goal_hits")
    .addColumn("project_id", "text", (c) => c.notNull())
    // A conversion goal id, or "$signup" for signup events.
    .addColumn("goal_key", "text", (c) => c.notNull())
    .addColumn("event_id", "text", (c) => c.notNull())
    .addColumn("ts", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("analytics_goal_hits_pk", ["project_id", "goal_key", "event_id"])
    .execute();
  await db.schema
    .createIndex("analytics_goal_hits_time")
    .on("analytics_goal_hits")
    .columns(["project_id", "goal_key", "ts"])
    .execute();

  await db.schema
    .createTable("analytics_daily")
    .addColumn("project_id", "text", (c) => c.notNull())
    /** UTC day number: floor(epoch ms / 86 400 000). */
    .addColumn("day", "integer", (c) => c.notNull())
    .addColumn("channel", "text", (c) => c.notNull())
    // Distinct visitors of the day and channel as a mergeable sketch (see analytics/ingest/hll.ts).
    .addColumn("visitors_sketch", "text", (c) => c.notNull())
    .addColumn("conversions", "integer", (c) => c.notNull())
    .addColumn("revenue", "double precision", (c) => c.notNull())
    .addColumn("leads", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("analytics_daily_pk", ["project_id", "day", "channel"])
    .execute();

  // Visitor → lead as analytics knows it (told by identity), to key new touchpoints by person.
  await db.schema
    .createTable("analytics_links")
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("visitor_id", "text", (c) => c.notNull())
    .addColumn("lead_id", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("analytics_links_pk", ["project_id", "visitor_id"])
    .execute();
}
