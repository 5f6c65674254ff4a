import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/**
 * A cohort's `trustBrowserProperties` (0/1, default 0): whether flag targeting counts lead
 * properties a browser wrote with the public key. Reports count every property either way.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable("analytics_cohorts")
    .addColumn("trust_browser_properties", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}
