import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/**
 * Index review: three reads by lead or person had no index and scanned every row of the
 * project, so they grew with the data and held SQLite's one thread meanwhile (bench/README.md,
 * the mixed load):
 * - a lead list's conversion totals (`conversionTotalsOfLeads`: analytics_conversions by lead_id);
 * - a person's visitors when a conversion is credited (`visitorsOfPeople`: analytics_links by
 *   lead_id), on the ingest path;
 * - a person's conversions, credited again when a visitor is linked to the lead
 *   (`conversionsOfPerson`: by person_key), on every identify.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createIndex("analytics_conversions_lead")
    .on("analytics_conversions")
    .columns(["project_id", "lead_id"])
    .execute();
  await db.schema
    .createIndex("analytics_conversions_person")
    .on("analytics_conversions")
    .columns(["project_id", "person_key"])
    .execute();
  await db.schema
    .createIndex("analytics_links_lead")
    .on("analytics_links")
    .columns(["project_id", "lead_id"])
    .execute();
}
