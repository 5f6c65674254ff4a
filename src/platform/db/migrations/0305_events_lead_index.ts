import { type Kysely, sql } from "kysely";
import type { Dialect } from "../index.js";

/**
 * Index review: erasing a lead deletes the events sent with its id by any visitor
 * (event-store/erasure.ts), and nothing led there but a scan of every event of every project. Partial:
 * only events that carry a lead id (server events naming one) are in it, so page views, most of
 * ingest, cost it nothing. On PostgreSQL it is made on every monthly partition.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await sql`create index events_lead on events (project_id, lead_id) where lead_id is not null`.execute(db);
}
