import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/** GET /api/leads lists a project's leads newest first with a keyset cursor on (created_at, id). */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createIndex("identity_leads_created")
    .on("identity_leads")
    .columns(["project_id", "created_at", "id"])
    .execute();
}
