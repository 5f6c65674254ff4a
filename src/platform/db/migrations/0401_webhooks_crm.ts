import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/**
 * What incoming CRM (HubSpot) events taught us about CRM objects: a contact's email, a deal's amount,
 * currency and associated contact. HubSpot's webhook events carry one property change each, so a
 * "deal won" needs what earlier events said about that deal.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("webhook_crm_objects")
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("object_type", "text", (c) => c.notNull()) // contact | deal
    .addColumn("object_id", "text", (c) => c.notNull())
    .addColumn("data", "text", (c) => c.notNull()) // JSON
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("webhook_crm_objects_pk", ["project_id", "object_type", "object_id"])
    .execute();
}
