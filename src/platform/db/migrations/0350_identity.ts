import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/** Identity: visitors (first/last seen, first touch, lead link) and leads (unique email per project). */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("identity_visitors")
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("visitor_id", "text", (c) => c.notNull())
    .addColumn("workspace_id", "text", (c) => c.notNull())
    // A visitor belongs to at most one lead: the link is a column, not a join table.
    .addColumn("lead_id", "text")
    .addColumn("link_source", "text")
    .addColumn("linked_at", "text")
    .addColumn("first_seen", "bigint", (c) => c.notNull())
    .addColumn("last_seen", "bigint", (c) => c.notNull())
    .addColumn("channel", "text")
    .addColumn("source", "text")
    .addColumn("landing_page", "text")
    .addPrimaryKeyConstraint("identity_visitors_pk", ["project_id", "visitor_id"])
    .execute();
  await db.schema
    .createIndex("identity_visitors_lead")
    .on("identity_visitors")
    .columns(["project_id", "lead_id"])
    .execute();

  await db.schema
    .createTable("identity_leads")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("workspace_id", "text", (c) => c.notNull())
    // Stored lower-cased and trimmed, so the unique index is case-insensitive.
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("name", "text")
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("properties", "text", (c) => c.notNull())
    .addColumn("first_seen", "bigint")
    .addColumn("channel", "text")
    .addColumn("attr_source", "text")
    .addColumn("landing_page", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("identity_leads_email")
    .on("identity_leads")
    .columns(["project_id", "email"])
    .unique()
    .execute();
}
