import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/** Feature flags: flags, their change history, and each project's flag settings. */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("flags")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("value_type", "text", (c) => c.notNull())
    .addColumn("default_value", "text", (c) => c.notNull())
    .addColumn("enabled", "integer", (c) => c.notNull())
    .addColumn("rules", "text", (c) => c.notNull())
    .addColumn("tags", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("flags_key").on("flags").columns(["project_id", "key"]).unique().execute();
  await db.schema.createIndex("flags_project").on("flags").columns(["project_id", "created_at"]).execute();

  // Kept when a flag is deleted (no foreign key to flags): the history outlives the flag.
  await db.schema
    .createTable("flag_history")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("flag_id", "text", (c) => c.notNull())
    .addColumn("flag_key", "text", (c) => c.notNull())
    .addColumn("action", "text", (c) => c.notNull())
    .addColumn("actor", "text", (c) => c.notNull())
    .addColumn("at", "text", (c) => c.notNull())
    .addColumn("before", "text")
    .addColumn("after", "text")
    .execute();
  await db.schema
    .createIndex("flag_history_key")
    .on("flag_history")
    .columns(["project_id", "flag_key", "at"])
    .execute();

  await db.schema
    .createTable("flag_settings")
    .addColumn("project_id", "text", (c) => c.primaryKey().references("projects.id").onDelete("cascade"))
    .addColumn("remote_eval_only", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("revision", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("revised_at", "text", (c) => c.notNull())
    .execute();
}
