import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/**
 * A flag's `hashing` ("growthbook" | "posthog", default "growthbook"): the scheme its rollouts
 * place users by, so a flag moved from PostHog keeps its users' values.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable("flags")
    .addColumn("hashing", "text", (c) => c.notNull().defaultTo("growthbook"))
    .execute();
}
