import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/** One row per project whose configuration the events pipeline has read or changed (config-version.ts). */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("project_config_versions")
    .addColumn("project_id", "text", (c) => c.primaryKey())
    .addColumn("version", "bigint", (c) => c.notNull())
    .execute();
}
