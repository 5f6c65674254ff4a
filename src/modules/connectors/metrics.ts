import { sql } from "kysely";
import type { ProjectRef } from "../../platform/auth/principal.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import { getConnector } from "./store.js";
import { CONNECTOR_TYPES, type ConnectorType, DAY_MS, isoDay } from "./types.js";
import "./tables.js";

export type Period = "7d" | "30d" | "90d";
export const AD_TYPES: ConnectorType[] = ["search_ads", "social_ads", "professional_network_ads"];

/**
 * Which metric fields each connector type reports (the spec leaves it open; see
 * docs/decisions/connectors.md). `campaigns` holds channels for web_analytics.
 */
export const METRIC_FIELDS: Record<ConnectorType, string[]> = {
  search_ads: ["spend", "impressions", "clicks", "conversions", "revenue", "cpa", "roas", "campaigns"],
  social_ads: ["spend", "impressions", "clicks", "conversions", "revenue", "cpa", "roas", "campaigns"],
  professional_network_ads: [
    "spend",
    "impressions",
    "clicks",
    "conversions",
    "revenue",
    "cpa",
    "roas",
    "campaigns",
  ],
  web_analytics: ["sessions", "conversions", "campaigns"],
  crm: ["conversions", "revenue"],
  payments: ["conversions", "revenue", "mrr"],
  accounting: ["revenue", "expenses", "netIncome"],
};

const r2 = (n: number) => Math.round(n * 100) / 100;
const ratio = (a: number, b: number) => (b > 0 ? r2(a / b) : null);

export function periodRange(period: Period, now = Date.now()) {
  const days = Number(period.slice(0, -1));
  return { from: isoDay(now - (days - 1) * DAY_MS), to: isoDay(now) };
}

interface Sums {
  spend: number;
  impressions: number;
  clicks: number;
  conversions: number;
  revenue: number;
  sessions: number;
}

async function sums(db: DbOrTrx, project: ProjectRef, type: string, from: string, to: string) {
  const base = db
    .selectFrom("connector_daily")
    .where("project_id", "=", project.id)
    .where("connector_type", "=", type)
    .where("day", ">=", from)
    .where("day", "<=", to);
  const agg = {
    spend: sql<number>`coalesce(sum(spend), 0)`,
    impressions: sql<number>`coalesce(sum(impressions), 0)`,
    clicks: sql<number>`coalesce(sum(clicks), 0)`,
    conversions: sql<number>`coalesce(sum(conversions), 0)`,
    revenue: sql<number>`coalesce(sum(revenue), 0)`,
    sessions: sql<number>`coalesce(sum(sessions), 0)`,
  };
  const total = await base
    .select([
      agg.spend.as("spend"),
      agg.impressions.as("impressions"),
      agg.clicks.as("clicks"),
      agg.conversions.as("conversions"),
      agg.revenue.as("revenue"),
      agg.sessions.as("sessions"),
    ])
    .executeTakeFirstOrThrow();
  const campaigns = await base
    .select([
      "campaign_id",
      sql<string>`max(campaign_name)`.as("name"),
      agg.spend.as("spend"),
      agg.conversions.as("conversions"),
      agg.sessions.as("sessions"),
    ])
    .groupBy("campaign_id")
    .execute();
  const n = (v: unknown) => Number(v ?? 0);
  const t: Sums = {
    spend: n(total.spend),
    impressions: n(total.impressions),
    clicks: n(total.clicks),
    conversions: n(total.conversions),
    revenue: n(total.revenue),
    sessions: n(total.sessions),
  };
  return {
    total: t,
    campaigns: campaigns.map((c) => ({
      name: c.name,
      spend: n(c.spend),
      conversions: n(c.conversions),
      sessions: n(c.sessions),
    })),
  };
}

export type ConnectorMetrics = { connectorType: string } & Record<string, unknown>;

function shape(type: ConnectorType, s: Awaited<ReturnType<typeof sums>>, summary: Record<string, number>) {
  const t = s.total;
  const all: Record<string, unknown> = {
    spend: r2(t.spend),
    impressions: t.impressions,
    clicks: t.clicks,
    conversions: r2(t.conversions),
    revenue: r2(t.revenue),
    sessions: t.sessions,
    cpa: ratio(t.spend, t.conversions),
    roas: ratio(t.revenue, t.spend),
    mrr: r2(summary.mrr ?? 0),
    expenses: r2(t.spend),
    netIncome: r2(t.revenue - t.spend),
    campaigns:
      type === "web_analytics"
        ? s.campaigns
            .map((c) => ({ name: c.name, sessions: c.sessions, conversions: r2(c.conversions) }))
            .sort((a, b) => b.sessions - a.sessions || a.name.localeCompare(b.name))
        : s.campaigns
            .map((c) => ({ name: c.name, spend: r2(c.spend), conversions: r2(c.conversions) }))
            .sort((a, b) => b.spend - a.spend || a.name.localeCompare(b.name)),
  };
  const out: ConnectorMetrics = { connectorType: type };
  for (const f of METRIC_FIELDS[type]) out[f] = all[f];
  return out;
}

export async function connectorMetrics(
  db: DbOrTrx,
  project: ProjectRef,
  type: ConnectorType,
  period: Period,
) {
  const row = await getConnector(db, project, type);
  const { from, to } = periodRange(period);
  const s = await sums(db, project, type, from, to);
  return { ...shape(type, s, JSON.parse(row.summary)), period: { from, to } };
}

/**
 * All connected connectors plus totals. Spend, clicks and conversions come from the ad platforms;
 * revenue is the payments revenue when payments is connected, else won CRM deals, else what the
 * ad platforms attribute to themselves (named in `revenueSource`).
 */
export async function overview(db: DbOrTrx, project: ProjectRef, period: Period) {
  const { from, to } = periodRange(period);
  const connected = await db
    .selectFrom("connectors")
    .select(["type", "summary"])
    .where("project_id", "=", project.id)
    .execute();
  const order = (t: string) => CONNECTOR_TYPES.indexOf(t as ConnectorType);
  connected.sort((a, b) => order(a.type) - order(b.type));
  const connectors: ConnectorMetrics[] = [];
  const totals = { spend: 0, impressions: 0, clicks: 0, conversions: 0 };
  const revenueBy: Partial<Record<string, number>> = {};
  let adRevenue = 0;
  for (const c of connected) {
    const type = c.type as ConnectorType;
    const s = await sums(db, project, type, from, to);
    connectors.push(shape(type, s, JSON.parse(c.summary)));
    if (AD_TYPES.includes(type)) {
      totals.spend += s.total.spend;
      totals.impressions += s.total.impressions;
      totals.clicks += s.total.clicks;
      totals.conversions += s.total.conversions;
      adRevenue += s.total.revenue;
    }
    if (type === "payments" || type === "crm") revenueBy[type] = s.total.revenue;
  }
  const revenueSource =
    revenueBy.payments !== undefined ? "payments" : revenueBy.crm !== undefined ? "crm" : "ad_platforms";
  const revenue = revenueBy.payments ?? revenueBy.crm ?? adRevenue;
  return {
    period: { from, to },
    connectors,
    totals: {
      spend: r2(totals.spend),
      impressions: totals.impressions,
      clicks: totals.clicks,
      conversions: r2(totals.conversions),
      revenue: r2(revenue),
      revenueSource,
      cpa: ratio(totals.spend, totals.conversions),
      roas: ratio(revenue, totals.spend),
    },
  };
}

export const CONNECTOR_GOAL_METRICS = ["mrr", "payments_revenue", "crm_revenue"] as const;

/** Goal metrics connectors provide: `mrr` (current), `payments_revenue` and `crm_revenue` in range. */
export async function goalMetric(
  db: DbOrTrx,
  project: ProjectRef,
  metric: string,
  range: { from: number; to: number },
): Promise<number | undefined> {
  if (metric === "mrr") {
    const row = await db
      .selectFrom("connectors")
      .select("summary")
      .where("project_id", "=", project.id)
      .where("type", "=", "payments")
      .executeTakeFirst();
    if (!row) return undefined;
    return Number((JSON.parse(row.summary) as { mrr?: number }).mrr ?? 0);
  }
  const source = metric === "payments_revenue" ? "payments" : metric === "crm_revenue" ? "crm" : undefined;
  if (!source) return undefined;
  const res = await db
    .selectFrom("connector_revenue")
    .select(sql<number>`coalesce(sum(amount), 0)`.as("total"))
    .where("project_id", "=", project.id)
    .where("connector_type", "=", source)
    .where("occurred_at", ">=", range.from)
    .where("occurred_at", "<", range.to)
    .executeTakeFirstOrThrow();
  return r2(Number(res.total));
}
