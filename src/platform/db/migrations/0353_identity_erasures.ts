import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/**
 * Erasure (`DELETE /api/leads/:id`, `DELETE /api/identity?visitorId=`):
 * - `identity_erasures` records each one — who asked, when, and how much went — keyed by a hash of
 *   the subject, so a repeat finds it and nothing personal is kept;
 * - `identity_leads.counted_channel`: the channel a lead was counted under in the daily rollup when
 *   it was created (its `channel` may change later), so its erasure takes it back from that row.
 *   Null on older leads: their current channel is used.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("identity_erasures")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("subject_hash", "text", (c) => c.notNull())
    .addColumn("requested_by", "text", (c) => c.notNull())
    .addColumn("counts", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addUniqueConstraint("identity_erasures_subject", ["project_id", "subject", "subject_hash"])
    .execute();
  await db.schema
    .createIndex("identity_erasures_created")
    .on("identity_erasures")
    .columns(["project_id", "created_at", "id"])
    .execute();
  await db.schema.alterTable("identity_leads").addColumn("counted_channel", "text").execute();
}
