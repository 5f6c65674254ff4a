import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/**
 * An anonymous visitor's `$set` / `$set_once` are kept on its identity row (JSON, null when none)
 * and merged into the lead it is linked to, as PostHog merges an anonymous person into the
 * identified one: the lead's own values win on a conflict.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable("identity_visitors").addColumn("properties", "text").execute();
}
