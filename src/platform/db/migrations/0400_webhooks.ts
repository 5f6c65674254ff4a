import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("webhook_endpoints")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("events", "text", (c) => c.notNull()) // JSON array of event types
    .addColumn("secret_sealed", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull()) // active | disabled
    .addColumn("disabled_reason", "text")
    .addColumn("failing_since", "bigint") // epoch ms of the first failure since the last success
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("webhook_endpoints_project")
    .on("webhook_endpoints")
    .columns(["project_id", "created_at"])
    .execute();

  await db.schema
    .createTable("webhook_deliveries")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("endpoint_id", "text", (c) =>
      c.notNull().references("webhook_endpoints.id").onDelete("cascade"),
    )
    .addColumn("event_id", "text", (c) => c.notNull())
    .addColumn("event_type", "text", (c) => c.notNull())
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull()) // pending | succeeded | failed
    .addColumn("generation", "integer", (c) => c.notNull())
    .addColumn("attempt_count", "integer", (c) => c.notNull())
    .addColumn("last_error", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  // One delivery per (event, endpoint): the service-event subscriber may run more than once.
  await db.schema
    .createIndex("webhook_deliveries_event_endpoint")
    .on("webhook_deliveries")
    .columns(["event_id", "endpoint_id"])
    .unique()
    .execute();
  await db.schema
    .createIndex("webhook_deliveries_endpoint")
    .on("webhook_deliveries")
    .columns(["endpoint_id", "created_at", "id"])
    .execute();

  await db.schema
    .createTable("webhook_attempts")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("delivery_id", "text", (c) =>
      c.notNull().references("webhook_deliveries.id").onDelete("cascade"),
    )
    .addColumn("attempt", "integer", (c) => c.notNull())
    .addColumn("succeeded", "integer", (c) => c.notNull())
    .addColumn("status_code", "integer")
    .addColumn("duration_ms", "integer", (c) => c.notNull())
    .addColumn("error", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("webhook_attempts_delivery")
    .on("webhook_attempts")
    .columns(["delivery_id", "attempt"])
    .execute();

  await db.schema
    .createTable("webhook_sources")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("secret_sealed", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("webhook_sources_pk", ["workspace_id", "source"])
    .execute();
  await db.schema.createIndex("webhook_sources_source").on("webhook_sources").column("source").execute();

  // Ids of incoming platform events already accepted, so a replayed delivery is not processed twice.
  await db.schema
    .createTable("webhook_incoming_events")
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("external_id", "text", (c) => c.notNull())
    .addColumn("received_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("webhook_incoming_events_pk", ["workspace_id", "source", "external_id"])
    .execute();
}
