import type { ProjectRef } from "../../platform/auth/principal.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import { type StateHolder, provide } from "../../platform/deps.js";
import { LEAD_ANALYTICS, type LeadAnalytics } from "../identity/service.js";
import { parseFilterParam } from "./filters/filter.js";
import { leadPropertyTest } from "./filters/lead-reader.js";
import { peopleMatch } from "./reports/reports.js";
import "./tables.js";

/** Conversions (refunds excluded) and revenue (refunds included) of each given lead, from analytics' own records. */
async function conversionTotalsOfLeads(
  db: DbOrTrx,
  project: ProjectRef,
  leadIds: string[],
): Promise<Map<string, { conversions: number; revenue: number }>> {
  const out = new Map<string, { conversions: number; revenue: number }>();
  if (leadIds.length === 0) return out;
  const rows = await db
    .selectFrom("analytics_conversions")
    .select((eb) => [
      "lead_id",
      eb.fn.sum<number>("counted").as("conversions"),
      eb.fn.sum<number>("revenue").as("revenue"),
    ])
    .where("project_id", "=", project.id)
    .where("lead_id", "in", leadIds)
    .groupBy("lead_id")
    .execute();
  for (const r of rows)
    out.set(r.lead_id!, {
      conversions: Number(r.conversions),
      revenue: Math.round(Number(r.revenue) * 1e6) / 1e6,
    });
  return out;
}

/**
 * What identity's lead list and lead profile ask of analytics (identity/lead-analytics.ts): the
 * report filter over leads and each lead's conversion totals. Handed down at registration, as
 * identity does not import analytics.
 */
const leadAnalytics: LeadAnalytics = {
  parseFilter: (text) => parseFilterParam(text),
  propertyTest: leadPropertyTest,
  peopleMatching: peopleMatch,
  conversionTotals: conversionTotalsOfLeads,
};

/** Provides analytics' side of the lead list to an app (module.ts) or a read worker (its `prepare`). */
export const provideLeadAnalytics = (holder: StateHolder) => provide(holder, LEAD_ANALYTICS, leadAnalytics);
