import type { Kysely } from "kysely";
import type { Dialect } from "../index.js";

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("connectors")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull()) // connected | syncing | error | needs_reauth
    .addColumn("account_id", "text")
    .addColumn("account_name", "text")
    // AES-256-GCM sealed JSON (tokens or API key); never plain text.
    .addColumn("credentials", "text", (c) => c.notNull())
    .addColumn("cursor", "text", (c) => c.notNull()) // JSON
    .addColumn("summary", "text", (c) => c.notNull()) // JSON, e.g. {"mrr": 123}
    .addColumn("last_sync", "text")
    .addColumn("last_error", "text")
    .addColumn("connected_at", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("connectors_project_type")
    .on("connectors")
    .columns(["project_id", "type"])
    .unique()
    .execute();

  await db.schema
    .createTable("connector_oauth_states")
    .addColumn("nonce", "text", (c) => c.primaryKey())
    .addColumn("workspace_id", "text", (c) => c.notNull())
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("code_verifier", "text") // sealed
    .addColumn("expires_at", "bigint", (c) => c.notNull())
    .addColumn("used_at", "bigint")
    .execute();

  await db.schema
    .createTable("connector_sync_runs")
    .addColumn("sync_id", "text", (c) => c.notNull())
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("connector_id", "text", (c) => c.notNull())
    .addColumn("connector_type", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull()) // queued | running | done | error | already_running
    .addColumn("rows", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("error", "text")
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("started_at", "text")
    .addColumn("finished_at", "text")
    .addPrimaryKeyConstraint("connector_sync_runs_pk", ["sync_id", "connector_type"])
    .execute();

  await db.schema
    .createTable("connector_daily")
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("connector_type", "text", (c) => c.notNull())
    .addColumn("campaign_id", "text", (c) => c.notNull())
    .addColumn("campaign_name", "text", (c) => c.notNull())
    .addColumn("day", "text", (c) => c.notNull()) // YYYY-MM-DD (UTC or the account's zone)
    .addColumn("spend", "double precision", (c) => c.notNull().defaultTo(0))
    .addColumn("impressions", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("clicks", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("conversions", "double precision", (c) => c.notNull().defaultTo(0))
    .addColumn("revenue", "double precision", (c) => c.notNull().defaultTo(0))
    .addColumn("sessions", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("updated_at", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("connector_daily_pk", ["project_id", "connector_type", "campaign_id", "day"])
    .execute();

  // Revenue items (payments charges/refunds, won CRM deals), deduplicated by external id; `ingested`
  // marks the ones handed to the events module as `$revenue` events.
  await db.schema
    .createTable("connector_revenue")
    .addColumn("project_id", "text", (c) => c.notNull())
    .addColumn("external_id", "text", (c) => c.notNull())
    .addColumn("connector_type", "text", (c) => c.notNull())
    .addColumn("amount", "double precision", (c) => c.notNull())
    .addColumn("currency", "text", (c) => c.notNull())
    .addColumn("occurred_at", "bigint", (c) => c.notNull())
    .addColumn("email", "text")
    .addColumn("ingested", "integer", (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint("connector_revenue_pk", ["project_id", "external_id"])
    .execute();
  await db.schema
    .createIndex("connector_revenue_time")
    .on("connector_revenue")
    .columns(["project_id", "occurred_at"])
    .execute();
}
