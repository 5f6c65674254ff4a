import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("jobs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull()) // queued | running | done | failed
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("max_attempts", "integer", (c) => c.notNull())
    .addColumn("run_at", "bigint", (c) => c.notNull())
    .addColumn("locked_until", "bigint")
    .addColumn("locked_by", "text")
    .addColumn("last_error", "text")
    .addColumn("unique_key", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("jobs_due").on("jobs").columns(["status", "run_at"]).execute();
  await db.schema.createIndex("jobs_unique_key").on("jobs").columns(["unique_key", "status"]).execute();

  await db.schema
    .createTable("service_events")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("project_id", "text")
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("data", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("service_events_project")
    .on("service_events")
    .columns(["project_id", "created_at"])
    .execute();
}
