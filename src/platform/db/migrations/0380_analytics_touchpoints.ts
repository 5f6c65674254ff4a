import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/**
 * Touchpoints are found through the visitors of a person at credit time (rare: conversions and
 * links), not kept keyed by person on the ingest path; the (project, visitor) index gains the time
 * so a conversion's lookback window is a range scan.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.dropIndex("analytics_touchpoints_person").execute();
  await db.schema.dropIndex("analytics_touchpoints_visitor").execute();
  await db.schema
    .createIndex("analytics_touchpoints_visitor_ts")
    .on("analytics_touchpoints")
    .columns(["project_id", "visitor_id", "ts"])
    .execute();
}
