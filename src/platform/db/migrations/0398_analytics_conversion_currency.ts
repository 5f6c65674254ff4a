import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/**
 * Issue 34. The currency a conversion's revenue was sent in (`data.currency`, ISO 4217,
 * upper-cased), so the summary can say which currency its revenue is in, or that it is mixed.
 * Conversions recorded before this column have none: their revenue counts, in no stated currency.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable("analytics_conversions").addColumn("currency", "text").execute();
}
