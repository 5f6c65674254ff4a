import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/**
 * Sign-in sessions kept server-side, so logout, a password change or an admin can end one at
 * once on every process (the cookie's token alone stays valid until it expires). Times epoch ms.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("user_sessions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("last_seen_at", "bigint", (c) => c.notNull())
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .addColumn("ended_at", "bigint")
    .execute();
  await db.schema.createIndex("user_sessions_user").on("user_sessions").column("user_id").execute();
}
