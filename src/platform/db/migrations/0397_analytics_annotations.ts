import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/**
 * Annotations: a dated note per project ("launched the pricing page"), optionally over a
 * period (a campaign's days), drawn on every time chart. Read by project and date range, so the
 * index leads with the date; lists go newest date first.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("analytics_annotations")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    // ISO dates (YYYY-MM-DD, UTC days, as the reports' periods): compared as text.
    .addColumn("date", "text", (c) => c.notNull())
    .addColumn("end_date", "text")
    .addColumn("text", "text", (c) => c.notNull())
    .addColumn("created_by", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("analytics_annotations_project")
    .on("analytics_annotations")
    .columns(["project_id", "date", "created_at"])
    .execute();
}
