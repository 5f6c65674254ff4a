import type { ProjectRef } from "../../platform/auth/principal.js";
import type { Trx } from "../../platform/db/index.js";
import { enqueueJob } from "../../platform/jobs/index.js";
import { bridge } from "./bridge.js";
import { type ConnectorType, type DailyRow, type LeadItem, type RevenueItem, isoDay } from "./types.js";
import "./tables.js";
import { FORWARD_LEADS_JOB, FORWARD_REVENUE_JOB } from "./schema.js";
import type { ServiceDeps } from "../../platform/deps.js";

/** Where a sync's results go: daily rows, revenue items, and the hand-off to identity and events. */

const LEADS_PER_JOB = 500;

/**
 * Enqueued in the sync's own transaction (outbox): the hand-off to identity and events runs as
 * jobs with their own retries, so a failed hand-off neither re-runs the platform sync nor is lost
 * once the cursor has moved on.
 */
export async function enqueueForwarding(
  trx: Trx,
  project: ProjectRef,
  connectorId: string,
  type: ConnectorType,
  leads: LeadItem[],
) {
  const scope = { projectId: project.id, workspaceId: project.workspaceId, type };
  for (let i = 0; i < leads.length; i += LEADS_PER_JOB) {
    await enqueueJob(trx, FORWARD_LEADS_JOB, { ...scope, leads: leads.slice(i, i + LEADS_PER_JOB) });
  }
  if (REVENUE_SOURCES[type]) {
    // One forwarder per connector at a time: two would read the same pending items.
    await enqueueJob(trx, FORWARD_REVENUE_JOB, scope, { uniqueKey: `connector-forward:${connectorId}` });
  }
}
export const REVENUE_SOURCES: Partial<Record<ConnectorType, { id: string; name: string }>> = {
  payments: { id: "charges", name: "Charges and refunds" },
  crm: { id: "won_deals", name: "Won deals" },
};

export async function upsertRows(trx: Trx, projectId: string, type: string, rows: DailyRow[]) {
  const now = new Date().toISOString();
  for (const r of rows) {
    const values = {
      spend: r.spend ?? 0,
      impressions: r.impressions ?? 0,
      clicks: r.clicks ?? 0,
      conversions: r.conversions ?? 0,
      revenue: r.revenue ?? 0,
      sessions: r.sessions ?? 0,
      campaign_name: r.campaignName,
      updated_at: now,
    };
    await trx
      .insertInto("connector_daily")
      .values({
        project_id: projectId,
        connector_type: type,
        campaign_id: r.campaignId,
        day: r.day,
        ...values,
      })
      .onConflict((oc) =>
        oc.columns(["project_id", "connector_type", "campaign_id", "day"]).doUpdateSet(values),
      )
      .execute();
  }
}

/** Stores new revenue items and rebuilds the daily rows of the days they touch from all items. */
export async function storeRevenue(trx: Trx, projectId: string, type: ConnectorType, items: RevenueItem[]) {
  const days = new Set<string>();
  for (const it of items) {
    const res = await trx
      .insertInto("connector_revenue")
      .values({
        project_id: projectId,
        external_id: it.externalId,
        connector_type: type,
        amount: it.amount,
        currency: it.currency,
        occurred_at: it.occurredAt,
        email: it.email ?? null,
        ingested: 0,
      })
      .onConflict((oc) => oc.columns(["project_id", "external_id"]).doNothing())
      .executeTakeFirst();
    if (Number(res.numInsertedOrUpdatedRows ?? 0) > 0) days.add(isoDay(it.occurredAt));
  }
  const source = REVENUE_SOURCES[type]!;
  const rows: DailyRow[] = [];
  for (const day of days) {
    const from = Date.parse(`${day}T00:00:00Z`);
    const all = await trx
      .selectFrom("connector_revenue")
      .select(["amount"])
      .where("project_id", "=", projectId)
      .where("connector_type", "=", type)
      .where("occurred_at", ">=", from)
      .where("occurred_at", "<", from + 86_400_000)
      .execute();
    rows.push({
      campaignId: source.id,
      campaignName: source.name,
      day,
      revenue: all.reduce((s, r) => s + Number(r.amount), 0),
      conversions: all.filter((r) => Number(r.amount) > 0).length,
    });
  }
  await upsertRows(trx, projectId, type, rows);
  return days.size;
}

export async function forwardLeads(deps: ServiceDeps, project: ProjectRef, type: string, leads: LeadItem[]) {
  if (leads.length === 0) return;
  for (const l of leads) {
    await bridge.upsertLeadByEmail(deps, project, {
      email: l.email,
      name: l.name,
      source: type,
      properties: { externalId: l.externalId },
    });
  }
}

/** Hands not-yet-forwarded revenue to the events module as `$revenue` events (see bridge.ts). */
export async function forwardRevenue(deps: ServiceDeps, project: ProjectRef, type: ConnectorType) {
  if (!REVENUE_SOURCES[type]) return;
  const pending = await deps.db
    .selectFrom("connector_revenue")
    .selectAll()
    .where("project_id", "=", project.id)
    .where("connector_type", "=", type)
    .where("ingested", "=", 0)
    .orderBy("occurred_at")
    .limit(5000)
    .execute();
  for (let i = 0; i < pending.length; i += 500) {
    const batch = pending.slice(i, i + 500);
    const events = [];
    for (const r of batch) {
      const leadId = r.email
        ? (await bridge.upsertLeadByEmail(deps, project, { email: r.email, source: type })).lead.id
        : undefined;
      events.push({
        type: "$revenue",
        leadId,
        visitorId: leadId ? undefined : `${type}:${r.external_id}`,
        data: { revenue: Number(r.amount), currency: r.currency, source: type, externalId: r.external_id },
        timestamp: Number(r.occurred_at),
      });
    }
    await bridge.ingestServerEvents(deps, project, events);
    await deps.db
      .updateTable("connector_revenue")
      .set({ ingested: 1 })
      .where("project_id", "=", project.id)
      .where(
        "external_id",
        "in",
        batch.map((r) => r.external_id),
      )
      .execute();
  }
}
