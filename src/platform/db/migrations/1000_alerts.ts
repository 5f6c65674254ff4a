import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/**
 * Alerts: a one-series trend query with a condition, per project, and the history of their
 * firings. An alert keeps the last bucket it evaluated and whether that bucket was crossed, so a
 * check fires only when a bucket crosses after one that did not (once per crossing, however often
 * it is checked). A firing's notification status is kept on the firing: the outbox (jobs) delivers
 * it, and a failed delivery never removes the firing.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("alerts")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("query", "text", (c) => c.notNull())
    .addColumn("condition", "text", (c) => c.notNull())
    .addColumn("notify", "text", (c) => c.notNull())
    .addColumn("enabled", "integer", (c) => c.notNull())
    .addColumn("last_bucket", "text")
    .addColumn("last_crossed", "integer")
    .addColumn("last_value", "double precision")
    .addColumn("last_checked_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("alerts_project")
    .on("alerts")
    .columns(["project_id", "created_at", "id"])
    .execute();
  await db.schema.createIndex("alerts_enabled").on("alerts").columns(["enabled", "id"]).execute();
  await db.schema
    .createTable("alert_firings")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("alert_id", "text", (c) => c.notNull())
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("bucket", "text", (c) => c.notNull())
    .addColumn("value", "double precision")
    .addColumn("previous_value", "double precision")
    .addColumn("condition", "text", (c) => c.notNull())
    .addColumn("email_status", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("alert_firings_alert")
    .on("alert_firings")
    .columns(["alert_id", "created_at", "id"])
    .execute();
  // One firing per alert and bucket: two processes checking at once cannot both record it.
  await db.schema
    .createIndex("alert_firings_bucket")
    .on("alert_firings")
    .columns(["alert_id", "bucket"])
    .unique()
    .execute();
}
