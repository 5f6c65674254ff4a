import { type Kysely, sql } from "kysely";
import type { Dialect } from "../index.js";

/**
 * PostHog's groups without a person (src/modules/events/posthog/groups-store.ts): a group's traits as a
 * secret key's `groupIdentify` set them, read by PostHog's `/flags` for the groups a request names.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await sql`create table posthog_groups (
    project_id text not null, group_type text not null, group_key text not null,
    properties text not null, updated_at bigint not null,
    primary key (project_id, group_type, group_key))`.execute(db);
}
