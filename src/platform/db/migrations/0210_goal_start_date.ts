import { sql, type Kysely } from "kysely";
import type { Dialect } from "../index.js";

/**
 * A goal counts its metric from `start_date` (an ISO date or date-time), not only from
 * its creation: a revenue goal for the quarter set up mid-quarter counts the whole quarter.
 * Existing goals keep counting from their creation.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable("goals").addColumn("start_date", "text").execute();
  await sql`update goals set start_date = created_at where start_date is null`.execute(db);
}
