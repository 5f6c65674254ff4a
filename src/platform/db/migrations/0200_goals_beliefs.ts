import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("goals")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("metric", "text", (c) => c.notNull())
    .addColumn("target", "double precision", (c) => c.notNull())
    .addColumn("current", "double precision", (c) => c.notNull().defaultTo(0))
    .addColumn("deadline", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("status_manual", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("description", "text")
    .addColumn("unit", "text")
    .addColumn("reached_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("goals_project").on("goals").columns(["project_id", "created_at"]).execute();

  await db.schema
    .createTable("conversion_goals")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("event_type", "text", (c) => c.notNull())
    .addColumn("url_pattern", "text")
    .addColumn("conditions", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("conversion_goals_name")
    .on("conversion_goals")
    .columns(["project_id", "name"])
    .unique()
    .execute();

  await db.schema
    .createTable("beliefs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("statement", "text", (c) => c.notNull())
    .addColumn("confidence", "double precision", (c) => c.notNull())
    .addColumn("tags", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("beliefs_project")
    .on("beliefs")
    .columns(["project_id", "created_at"])
    .execute();

  await db.schema
    .createTable("belief_evidence")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("belief_id", "text", (c) => c.notNull().references("beliefs.id").onDelete("cascade"))
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("experiment_id", "text")
    .addColumn("delta", "double precision", (c) => c.notNull())
    .addColumn("sample_size", "double precision")
    .addColumn("confidence_before", "double precision", (c) => c.notNull())
    .addColumn("confidence_after", "double precision", (c) => c.notNull())
    .addColumn("timestamp", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("belief_evidence_belief")
    .on("belief_evidence")
    .columns(["belief_id", "timestamp"])
    .execute();
}
