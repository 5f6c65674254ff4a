import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/**
 * Events are the high-volume table: the primary key is a time-ordered text id, so inserts append
 * at the right edge of the b-tree; times are epoch-ms bigint. `event_visitors` is the small state
 * table behind the writer's in-memory session cache (one row per visitor), so a restart keeps
 * sessions and first touch.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("events")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("visitor_id", "text", (c) => c.notNull())
    .addColumn("lead_id", "text")
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("referrer", "text")
    .addColumn("data", "text", (c) => c.notNull())
    .addColumn("ts", "bigint", (c) => c.notNull())
    .addColumn("received_at", "bigint", (c) => c.notNull())
    .addColumn("session_id", "text", (c) => c.notNull())
    .addColumn("channel", "text", (c) => c.notNull())
    .addColumn("source", "text")
    .addColumn("is_bot", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("events_visitor_ts")
    .on("events")
    .columns(["project_id", "visitor_id", "ts"])
    .execute();
  await db.schema.createIndex("events_project_ts").on("events").columns(["project_id", "ts"]).execute();

  await db.schema
    .createTable("event_visitors")
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("visitor_id", "text", (c) => c.notNull())
    .addColumn("first_seen", "bigint", (c) => c.notNull())
    .addColumn("first_channel", "text", (c) => c.notNull())
    .addColumn("first_source", "text")
    .addColumn("first_landing_page", "text", (c) => c.notNull())
    .addColumn("session_id", "text", (c) => c.notNull())
    .addColumn("session_started", "bigint", (c) => c.notNull())
    .addColumn("session_channel", "text", (c) => c.notNull())
    .addColumn("session_source", "text")
    .addColumn("session_landing_page", "text", (c) => c.notNull())
    .addColumn("last_seen", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("event_visitors_pk", ["project_id", "visitor_id"])
    .execute();
}
