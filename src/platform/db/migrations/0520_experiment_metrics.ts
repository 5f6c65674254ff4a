import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/**
 * Secondary and guardrail goals, revenue per visitor, and the method that decided.
 * - `experiments.metrics`: JSON {secondary: string[], guardrails: [{goal, worseWhen}]}, null = none.
 * - `experiments.decision_method`: sequential | fixed-horizon | bandit | manual, set on completion.
 * - Each exposure keeps its visitor's revenue after exposure; each variant Σ and Σ² of those, so a
 *   revenue increment x on a visitor at r adds x and (r + x)² − r² (the variance needs no rescan).
 * - A visitor's first conversion on a secondary or guardrail goal, and the per-variant counts.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable("experiments").addColumn("metrics", "text").execute();
  await db.schema.alterTable("experiments").addColumn("decision_method", "text").execute();
  await db.schema
    .alterTable("experiment_exposures")
    .addColumn("revenue", "double precision", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable("experiment_variant_stats")
    .addColumn("revenue_sum", "double precision", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .alterTable("experiment_variant_stats")
    .addColumn("revenue_sum_squares", "double precision", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable("experiment_goal_conversions")
    .addColumn("experiment_id", "text", (c) => c.notNull().references("experiments.id").onDelete("cascade"))
    .addColumn("visitor_id", "text", (c) => c.notNull())
    .addColumn("goal_id", "text", (c) => c.notNull())
    .addColumn("variant", "text", (c) => c.notNull())
    .addColumn("converted_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("experiment_goal_conversions_pk", ["experiment_id", "visitor_id", "goal_id"])
    .execute();
  await db.schema
    .createTable("experiment_goal_stats")
    .addColumn("experiment_id", "text", (c) => c.notNull().references("experiments.id").onDelete("cascade"))
    .addColumn("goal_id", "text", (c) => c.notNull())
    .addColumn("variant", "text", (c) => c.notNull())
    .addColumn("conversions", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("experiment_goal_stats_pk", ["experiment_id", "goal_id", "variant"])
    .execute();
}
