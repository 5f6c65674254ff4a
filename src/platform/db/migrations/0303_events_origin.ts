import { type Kysely, sql } from "kysely";
import type { Dialect } from "../index.js";

/**
 * An event's origin is stored: `is_server = 1` for server events (batch format, incoming webhooks,
 * connectors), which never start a session or a touchpoint (docs/decisions/events.md, Origin).
 * Events stored before it: those of the synthetic lead visitor `lead:<id>` were server events;
 * other batch events cannot be told apart any more and stay web events.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable("events")
    .addColumn("is_server", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update events set is_server = 1 where visitor_id like 'lead:%'`.execute(db);
}
