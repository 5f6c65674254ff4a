import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/**
 * Saved insights (a report's kind and settings) and dashboards (a grid of a
 * project's insights), both per project and listed newest first. A dashboard's public link is
 * stored as the SHA-256 of its token, like API keys: the raw token is shown once, and a lookup by
 * the hash (unique) finds the dashboard. Clearing the hash revokes the link at once.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("insights")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("settings", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("insights_project")
    .on("insights")
    .columns(["project_id", "created_at", "id"])
    .execute();
  await db.schema
    .createTable("dashboards")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("items", "text", (c) => c.notNull())
    .addColumn("share_hash", "text")
    .addColumn("shared_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("dashboards_project")
    .on("dashboards")
    .columns(["project_id", "created_at", "id"])
    .execute();
  await db.schema.createIndex("dashboards_share").on("dashboards").column("share_hash").unique().execute();
}
