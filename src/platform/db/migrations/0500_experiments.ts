import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("experiments")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("mode", "text", (c) => c.notNull())
    .addColumn("target_url", "text", (c) => c.notNull())
    .addColumn("traffic_split", "double precision", (c) => c.notNull())
    .addColumn("variants", "text", (c) => c.notNull())
    // Current allocation (JSON array of fractions summing to 1); bandits rewrite it.
    .addColumn("weights", "text", (c) => c.notNull())
    .addColumn("belief_id", "text")
    .addColumn("conversion_goal_ids", "text")
    .addColumn("min_sample_per_variant", "integer", (c) => c.notNull())
    .addColumn("has_run", "integer", (c) => c.notNull())
    .addColumn("winner", "text")
    .addColumn("completion_reason", "text")
    .addColumn("started_at", "text")
    .addColumn("completed_at", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("experiments_project_status")
    .on("experiments")
    .columns(["project_id", "status", "created_at"])
    .execute();
  // One row per visitor and experiment: the first exposure wins, conversion is set once.
  await db.schema
    .createTable("experiment_exposures")
    .addColumn("experiment_id", "text", (c) => c.notNull().references("experiments.id").onDelete("cascade"))
    .addColumn("visitor_id", "text", (c) => c.notNull())
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("variant", "text", (c) => c.notNull())
    .addColumn("exposed_at", "bigint", (c) => c.notNull())
    .addColumn("converted_at", "bigint")
    .addPrimaryKeyConstraint("experiment_exposures_pk", ["experiment_id", "visitor_id"])
    .execute();
  await db.schema
    .createIndex("experiment_exposures_visitor")
    .on("experiment_exposures")
    .columns(["project_id", "visitor_id"])
    .execute();
  // Incrementally maintained counters per variant (results are computed from these).
  await db.schema
    .createTable("experiment_variant_stats")
    .addColumn("experiment_id", "text", (c) => c.notNull().references("experiments.id").onDelete("cascade"))
    .addColumn("variant", "text", (c) => c.notNull())
    .addColumn("exposures", "integer", (c) => c.notNull())
    .addColumn("conversions", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("experiment_variant_stats_pk", ["experiment_id", "variant"])
    .execute();
}
