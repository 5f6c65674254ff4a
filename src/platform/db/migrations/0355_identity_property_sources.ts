import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/**
 * Which properties a browser wrote. `browser_properties` on a lead (and on an anonymous visitor,
 * whose properties join its lead on link) is a JSON array of the property names whose current
 * value came from a public key, null when none: anyone can send the public key, so flag targeting
 * leaves those values out unless a cohort opts in. Existing rows start unmarked: before this,
 * nothing recorded who wrote a value.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable("identity_leads").addColumn("browser_properties", "text").execute();
  await db.schema.alterTable("identity_visitors").addColumn("browser_properties", "text").execute();
}
