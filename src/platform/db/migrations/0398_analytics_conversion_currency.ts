import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/**
 * The currency a conversion's revenue was sent in (`data.currency`, ISO 4217,
 * upper-cased), so the summary can say which currency its revenue is in, or that it is mixed.
 * Conversions recorded before this column have none: their revenue counts, in no stated currency.
 *
 * And a covering index for the period's people who converted: the summary reads person, channel,
 * counted and currency of the period's conversions from the index alone. Through the (project_id,
 * ts) index each row was a table lookup; index-only it is several times faster (bench/README.md).
 * One more index entry per conversion.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable("analytics_conversions").addColumn("currency", "text").execute();
  await db.schema
    .createIndex("analytics_conversions_period")
    .on("analytics_conversions")
    .columns(["project_id", "ts", "person_key", "channel", "counted", "currency"])
    .execute();
}
