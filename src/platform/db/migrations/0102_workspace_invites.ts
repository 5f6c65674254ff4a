import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

/**
 * Invitations. An admin invites an email with a role; the mail's link carries a
 * one-time token of which only the SHA-256 is stored (unique: the link finds its invitation).
 * Accepting sets `accepted_at` once; revoking or a newer invitation to the same email sets
 * `revoked_at`. Times are ISO text (record timestamps), so `expires_at` compares as text.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("workspace_invites")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("invited_by_id", "text", (c) => c.notNull())
    .addColumn("invited_by_email", "text", (c) => c.notNull())
    .addColumn("send_id", "text")
    .addColumn("delivery_status", "text", (c) => c.notNull())
    .addColumn("delivery_error", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .addColumn("accepted_at", "text")
    .addColumn("revoked_at", "text")
    .execute();
  await db.schema
    .createIndex("workspace_invites_workspace")
    .on("workspace_invites")
    .columns(["workspace_id", "created_at", "id"])
    .execute();
}
