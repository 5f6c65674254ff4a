import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/** Bandit allocations over time: one row each time an experiment's weights are set or recomputed. */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("experiment_weights")
    .addColumn("experiment_id", "text", (c) => c.notNull().references("experiments.id").onDelete("cascade"))
    .addColumn("at", "bigint", (c) => c.notNull())
    .addColumn("weights", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("experiment_weights_pk", ["experiment_id", "at"])
    .execute();
}
