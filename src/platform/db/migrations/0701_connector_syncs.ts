import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/** One row per sync trigger, so a sync with no connector still has a progress record. */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("connector_syncs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("trigger", "text", (c) => c.notNull()) // manual | schedule
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
}
