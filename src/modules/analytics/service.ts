import type { ProjectRef } from "../../platform/auth/principal.js";
import type { DbOrTrx, Trx } from "../../platform/db/index.js";
import { UNATTRIBUTED_CHANNEL } from "../../platform/event-bus.js";
import { scheduleGoalRecompute } from "../goals/service.js";
import { conversionsOfPerson, creditConversions } from "./ingest/credit-store.js";
import { personKey } from "./people.js";
import { applyAnalyticsDeltas } from "./ingest/apply-deltas.js";
import { BreakdownDeltas } from "./ingest/breakdown-store.js";
import { RollupDeltas } from "./ingest/rollup-store.js";
import "./tables.js";

/**
 * The analytics service other modules call: what identity tells analytics, in identity's
 * transaction. Analytics never reads identity's tables: it keeps the visitor → lead links it needs
 * to key touchpoints and conversions by person.
 */

/**
 * A new lead counts in the daily rollup of its creation day under its first-touch channel, or
 * `unattributed` when it has no web touch yet (created server-side, or before its first visit).
 */
export async function recordLeadCreated(
  trx: Trx,
  project: ProjectRef,
  lead: { channel: string | null; createdAt: number },
): Promise<void> {
  const deltas = new RollupDeltas();
  deltas.get(project.id, lead.createdAt, lead.channel ?? UNATTRIBUTED_CHANNEL).leads++;
  await applyAnalyticsDeltas(trx, deltas, new BreakdownDeltas());
  await scheduleGoalRecompute(trx, project);
}

/** The visitor's sessions and conversions now belong to the lead's journey (merged history). */
export async function recordVisitorLinked(
  trx: Trx,
  project: ProjectRef,
  visitorId: string,
  leadId: string,
): Promise<void> {
  await trx
    .insertInto("analytics_links")
    .values({ project_id: project.id, visitor_id: visitorId, lead_id: leadId, changed_at: Date.now() })
    .onConflict((oc) =>
      oc.columns(["project_id", "visitor_id"]).doUpdateSet({ lead_id: leadId, changed_at: Date.now() }),
    )
    .execute();
  const key = personKey(visitorId, leadId);
  await trx
    .updateTable("analytics_conversions")
    .set({ person_key: key, lead_id: leadId })
    .where("project_id", "=", project.id)
    .where("visitor_id", "=", visitorId)
    .execute();
  // Every conversion of the lead now has the visitor's sessions among its touchpoints.
  await creditConversions(trx, project.id, await conversionsOfPerson(trx, project.id, key));
}

/** Conversions (refunds excluded) and revenue (refunds included) of each given lead, from analytics' own records. */
export async function conversionTotalsOfLeads(
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

/** Erasure (identity's, in its transaction): analytics' records of a person, and the sketches to rebuild. */
export { eraseAnalyticsOf, takeBackLeadCreated } from "./erasure.js";
export { rebuildVisitorSketches } from "./ingest/sketch-rebuild.js";

/** Report filters: parsing, SQL for a lead's properties, and the people a filter selects. */
export {
  type Condition as FilterCondition,
  parseFilter,
  parseFilterParam,
  propertyConditionSql,
} from "./filters/filter.js";
export { eventFilter, peopleMatch as filterPersons } from "./reports/reports.js";
/** Cohorts: whether a person (a visitor id or a lead id) is in a saved cohort (flags' targeting). */
export { cohortMembers, cohortsOfPerson, existingCohortIds, isInCohort } from "./cohorts/cohorts.js";
export { LEAD_READER, type LeadReader } from "./filters/lead-reader.js";

/**
 * The reports as saved insights run them (the insights module): the same functions the
 * report endpoints call, their periods and their request and answer schemas.
 */
export {
  attributionReport,
  breakdownReport,
  funnelReport,
  retentionReport,
  summaryReport,
  timeseriesReport,
} from "./reports/reports.js";
export { analyticsPaths } from "./reports/paths.js";
export { type Period, resolvePeriod } from "./reports/period.js";
export {
  AnalyticsSummary,
  AttributionQuery,
  AttributionSummary,
  Breakdown,
  BreakdownQuery,
  Filter,
  Funnel,
  FunnelBody,
  Retention,
  RetentionQuery,
  SummaryQuery,
  Timeseries,
  TimeseriesQuery,
} from "./schema.js";
export { Paths, PathsBody } from "./reports/explore-schema.js";

/** The analytics engine (DuckDB), which the app opens beside the read pool. */
export { AnalyticsEngine, engineFileOf } from "./engine/client.js";

/** The reports as the MCP endpoint runs them: the report routes' read tasks, and annotations. */
export {
  breakdownTask,
  funnelTask,
  retentionTask,
  summaryTask,
  timeseriesTask,
  trendsTask,
} from "./read-tasks.js";
export { analyticsTrends, planTrends } from "./reports/trends.js";
export { Trends, TrendsBody } from "./reports/trends-schema.js";
export { type Author as AnnotationAuthor, createAnnotation } from "./annotations/annotations.js";
export { Annotation, CreateAnnotationBody } from "./annotations/schema.js";
