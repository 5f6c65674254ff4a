import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/** The sign-in session that started an OAuth flow: only that session may complete it. */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable("connector_oauth_states").addColumn("session_id", "text").execute();
}
