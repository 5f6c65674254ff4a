import "./tables.js";

/**
 * The analytics service other modules call. What identity changes reaches analytics through
 * identity's `onIdentityChanges` (module.ts, `ingest/identity-changes.ts`): analytics never reads
 * identity's tables, it keeps the visitor → lead links it needs to key touchpoints and
 * conversions by person.
 */

/** Erasure (the erasure module's transaction): analytics' records of a person, and the sketches to rebuild. */
export { eraseAnalyticsOf, takeBackLeadCreated } from "./erasure.js";
export { rebuildVisitorSketches } from "./ingest/sketch-rebuild.js";

/** Report filters: parsing (saved insights' settings, the MCP endpoint's arguments). */
export { parseFilter, parseFilterParam } from "./filters/filter.js";
/** Cohorts: whether a person (a visitor id or a lead id) is in a saved cohort (flags' targeting). */
export { cohortMembers, cohortsOfPerson, existingCohortIds, isInCohort } from "./cohorts/cohorts.js";
/** Cohorts in hashed form only, for SDKs that evaluate flags locally (flags' server payload). */
export { cohortHashedMembers } from "./cohorts/hashed-members.js";

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
