import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/** How an evidence entry's delta was obtained; entries written before this column stay null. */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable("belief_evidence").addColumn("method", "text").execute();
}
