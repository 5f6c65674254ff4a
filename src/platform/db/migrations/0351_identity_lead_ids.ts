import { type Kysely, sql } from "kysely";
import type { Dialect } from "../index.js";

/**
 * Leads may be created under the caller's own id (`POST /api/identity`, a batch `userId`), as
 * PostHog's identify and Segment's userId create the person: such a lead has no email yet, and
 * its id is unique per project, not across the installation (two projects may both have `user_42`).
 * PostgreSQL alters the table; SQLite cannot change a primary key or a NOT NULL in place, so the
 * table is rebuilt with the same rows.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect === "postgres") {
    await sql`alter table identity_leads alter column email drop not null`.execute(db);
    await sql`alter table identity_leads drop constraint identity_leads_pkey`.execute(db);
    await sql`alter table identity_leads add constraint identity_leads_pk primary key (project_id, id)`.execute(
      db,
    );
    return;
  }
  await db.schema
    .createTable("identity_leads_v2")
    .addColumn("id", "text", (c) => c.notNull())
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("workspace_id", "text", (c) => c.notNull())
    // Stored lower-cased and trimmed, so the unique index is case-insensitive; null until known.
    .addColumn("email", "text")
    .addColumn("name", "text")
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("properties", "text", (c) => c.notNull())
    .addColumn("first_seen", "bigint")
    .addColumn("channel", "text")
    .addColumn("attr_source", "text")
    .addColumn("landing_page", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("identity_leads_pk", ["project_id", "id"])
    .execute();
  await sql`insert into identity_leads_v2 (id, project_id, workspace_id, email, name, source, properties,
    first_seen, channel, attr_source, landing_page, created_at, updated_at)
    select id, project_id, workspace_id, email, name, source, properties, first_seen, channel, attr_source,
    landing_page, created_at, updated_at from identity_leads`.execute(db);
  await sql`drop table identity_leads`.execute(db);
  await sql`alter table identity_leads_v2 rename to identity_leads`.execute(db);
  // Null emails are distinct in a unique index on both databases: many leads may have none.
  await db.schema
    .createIndex("identity_leads_email")
    .on("identity_leads")
    .columns(["project_id", "email"])
    .unique()
    .execute();
}
