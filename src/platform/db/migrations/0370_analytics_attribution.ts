import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/**
 * Attribution credited when a conversion is recorded (and re-credited when its person's touchpoints
 * change by a link), rolled up per project × day × model × channel, so the attribution summary
 * reads days × channels rows instead of joining conversions with sessions.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  // JSON {model: {channel: credit}} as last applied to the rollup, to re-credit by difference.
  await db.schema.alterTable("analytics_conversions").addColumn("credits", "text").execute();
  await db.schema
    .createTable("analytics_attribution_daily")
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("day", "integer", (c) => c.notNull())
    .addColumn("model", "text", (c) => c.notNull())
    .addColumn("channel", "text", (c) => c.notNull())
    .addColumn("credited", "double precision", (c) => c.notNull())
    .addColumn("revenue", "double precision", (c) => c.notNull())
    .addPrimaryKeyConstraint("analytics_attribution_daily_pk", ["project_id", "model", "day", "channel"])
    .execute();
}
