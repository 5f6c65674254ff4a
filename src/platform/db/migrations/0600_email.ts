import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";
import { serialType } from "../migrate.js";

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("tx_keys")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("prefix", "text", (c) => c.notNull())
    .addColumn("key_hash", "text", (c) => c.notNull().unique())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("last_used_at", "text")
    .addColumn("revoked_at", "text")
    .execute();
  await db.schema
    .createIndex("tx_keys_workspace")
    .on("tx_keys")
    .columns(["workspace_id", "created_at"])
    .execute();

  await db.schema
    .createTable("communications")
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("id", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("comm_type", "text", (c) => c.notNull())
    .addColumn("slots", "text", (c) => c.notNull())
    .addColumn("blocks", "text", (c) => c.notNull())
    .addColumn("compiled", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("communications_pk", ["workspace_id", "id"])
    .execute();

  await db.schema
    .createTable("tx_sends")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("key_id", "text", (c) => c.notNull())
    .addColumn("to_addr", "text", (c) => c.notNull())
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("comm_id", "text")
    .addColumn("tags", "text", (c) => c.notNull())
    .addColumn("sandbox", "integer", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("message_id", "text")
    .addColumn("error", "text")
    .addColumn("idempotency_key", "text")
    .addColumn("pending_message", "text")
    .addColumn("attempts", "integer", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("tx_sends_recent")
    .on("tx_sends")
    .columns(["workspace_id", "created_at"])
    .execute();

  await db.schema
    .createTable("tx_send_events")
    .addColumn("id", serialType(dialect), (c) => c.primaryKey())
    .addColumn("send_id", "text", (c) => c.notNull().references("tx_sends.id").onDelete("cascade"))
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("at", "bigint", (c) => c.notNull())
    .addColumn("detail", "text")
    .execute();
  await db.schema
    .createIndex("tx_send_events_send")
    .on("tx_send_events")
    .columns(["send_id", "id"])
    .execute();

  await db.schema
    .createTable("tx_idempotency")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("idem_key", "text", (c) => c.notNull())
    .addColumn("request_hash", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("locked_until", "bigint", (c) => c.notNull())
    .addColumn("send_id", "text")
    .addColumn("response_status", "integer")
    .addColumn("response_body", "text")
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("tx_idempotency_pk", ["workspace_id", "idem_key"])
    .execute();
  await db.schema.createIndex("tx_idempotency_expiry").on("tx_idempotency").column("expires_at").execute();

  await db.schema
    .createTable("tx_suppressions")
    .addColumn("workspace_id", "text", (c) => c.notNull().references("workspaces.id").onDelete("cascade"))
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("detail", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("tx_suppressions_pk", ["workspace_id", "email"])
    .execute();
}
