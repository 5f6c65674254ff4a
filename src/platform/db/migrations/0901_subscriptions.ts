import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/**
 * Subscriptions: a dashboard or an insight mailed on a schedule, and the history of their sends.
 * A subscription keeps the scheduled moment it last sent for; a sweep claims the next moment by
 * moving it from the value it read, so two processes never both send one moment, and the unique
 * (subscription, period) index holds that even if a claim raced past it.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("subscriptions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("name", "text")
    .addColumn("dashboard_id", "text")
    .addColumn("insight_id", "text")
    .addColumn("frequency", "text", (c) => c.notNull())
    .addColumn("weekday", "text")
    .addColumn("day_of_month", "integer")
    .addColumn("hour", "integer", (c) => c.notNull())
    .addColumn("emails", "text", (c) => c.notNull())
    .addColumn("enabled", "integer", (c) => c.notNull())
    .addColumn("starts_at", "text", (c) => c.notNull())
    .addColumn("last_period", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("subscriptions_project")
    .on("subscriptions")
    .columns(["project_id", "created_at", "id"])
    .execute();
  await db.schema
    .createIndex("subscriptions_enabled")
    .on("subscriptions")
    .columns(["enabled", "id"])
    .execute();
  await db.schema
    .createTable("subscription_sends")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("subscription_id", "text", (c) => c.notNull())
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("period", "text", (c) => c.notNull())
    .addColumn("email_status", "text")
    .addColumn("error", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("subscription_sends_subscription")
    .on("subscription_sends")
    .columns(["subscription_id", "created_at", "id"])
    .execute();
  await db.schema
    .createIndex("subscription_sends_period")
    .on("subscription_sends")
    .columns(["subscription_id", "period"])
    .unique()
    .execute();
}
