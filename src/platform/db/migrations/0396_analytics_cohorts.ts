import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/**
 * Cohorts: saved definitions of people, per project, listed newest first. And a
 * `(project_id, ts)` index on session touchpoints: a filter on a session's values reads the
 * sessions of the period (one row per session) instead of every touchpoint of the project.
 * Touchpoints are written once per session, in about time order, so the index grows at its end.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("analytics_cohorts")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("definition", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("analytics_cohorts_project")
    .on("analytics_cohorts")
    .columns(["project_id", "created_at", "id"])
    .execute();
  await db.schema
    .createIndex("analytics_touchpoints_time")
    .on("analytics_touchpoints")
    .columns(["project_id", "ts"])
    .execute();
}
