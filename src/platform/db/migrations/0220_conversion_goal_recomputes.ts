import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/**
 * A conversion goal's recount from stored events (goals/recompute-state.ts): one row per goal, the
 * latest revision of its definition and how far the job that applies it got. A deleted goal's row
 * stays until the job has taken its conversions back out. Not keyed to `conversion_goals` for that
 * reason.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("conversion_goal_recomputes")
    .addColumn("goal_id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
    .addColumn("revision", "integer", (c) => c.notNull())
    .addColumn("removing", "integer", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("cursor", "text")
    .addColumn("types", "text")
    .addColumn("processed", "bigint", (c) => c.notNull())
    .addColumn("progress", "double precision", (c) => c.notNull())
    .addColumn("started_at", "text")
    .addColumn("finished_at", "text")
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("conversion_goal_recomputes_project")
    .on("conversion_goal_recomputes")
    .column("project_id")
    .execute();
}
