import type { StateHolder } from "../../platform/deps.js";
import { defineReadTask } from "../../platform/read-pool/task.js";
import { provideLeadAnalytics } from "./lead-analytics.js";
import { exportTask } from "./reports/export.js";
import type { CohortDefinitionT } from "./cohorts/schema.js";
import { cohortMemberPage, countCohort, evaluateCohortTask, previewCohort } from "./cohorts/cohorts.js";
import { hashedMembersTask } from "./cohorts/hashed-members.js";
import type { BreakdownDimension, FunnelBreakdown } from "./ingest/dimensions.js";
import type { Condition } from "./filters/filter.js";
import type { FunnelStep } from "./reports/funnel.js";
import type { AttributionModel } from "./ingest/models.js";
import type { AttributionBy } from "./schema.js";
import { type PathsQuery, analyticsPaths } from "./reports/paths.js";
import type { Period } from "./reports/period.js";
import { goalsTable } from "./reports/goals-table.js";
import {
  attributionReport,
  breakdownReport,
  funnelReport,
  retentionReport,
  summaryReport,
  timeseriesReport,
} from "./reports/reports.js";
import type { RetentionInterval } from "./reports/retention.js";
import type { Interval } from "./reports/timeseries.js";
import { type TrendsRequest, analyticsTrends } from "./reports/trends.js";
import { type WebRequest, analyticsWeb } from "./reports/web.js";

/**
 * Analytics' reads that grow with stored data, as read tasks: each report over its rollups or raw
 * events, and cohort membership. Routes, insights and flags run them through `deps.reads`, so they
 * answer from a reader thread (platform/read-pool/).
 */

interface Filtered {
  period: Period;
  conds: Condition[];
}
/** A view counting conversions: of one goal, or any (`goal` absent or "any"). */
interface Counted extends Filtered {
  goal?: string;
}

export const summaryTask = defineReadTask("analytics.summary", (ctx, project, q: Counted) =>
  summaryReport(ctx, project, q.period, q.conds, q.goal),
);

export const goalsTableTask = defineReadTask("analytics.goals", (ctx, project, q: Filtered) =>
  goalsTable(ctx, project, q.period, q.conds),
);

export const timeseriesTask = defineReadTask(
  "analytics.timeseries",
  (ctx, project, q: Counted & { interval: Interval }) =>
    timeseriesReport(ctx, project, q.period, q.interval, q.conds, q.goal),
);

export const breakdownTask = defineReadTask(
  "analytics.breakdown",
  (ctx, project, q: Counted & { by: BreakdownDimension; limit: number }) =>
    breakdownReport(ctx, project, q.by, q.period, q.limit, q.conds, q.goal),
);

export const funnelTask = defineReadTask(
  "analytics.funnel",
  (ctx, project, q: Filtered & { steps: FunnelStep[]; windowDays: number; breakdownBy?: FunnelBreakdown }) =>
    funnelReport(ctx, project, q.steps, q.windowDays, q.period, q.breakdownBy, q.conds),
);

export const retentionTask = defineReadTask(
  "analytics.retention",
  (
    ctx,
    project,
    q: Filtered & { interval: RetentionInterval; startEvent: string; returnEvent: string | null },
  ) => retentionReport(ctx, project, q.period, q.interval, q.startEvent, q.returnEvent, q.conds),
);

export const attributionTask = defineReadTask(
  "analytics.attribution",
  (ctx, project, q: Counted & { model: AttributionModel; by?: AttributionBy }) =>
    attributionReport(ctx, project, q.model, q.period, q.conds, q.goal, q.by),
);

export const pathsTask = defineReadTask(
  "analytics.paths",
  (ctx, project, q: Filtered & { query: PathsQuery }) =>
    analyticsPaths(ctx, project, q.query, q.period, q.conds),
);

export const trendsTask = defineReadTask("analytics.trends", (ctx, project, q: TrendsRequest) =>
  analyticsTrends(ctx, project, q),
);

export const webTask = defineReadTask("analytics.web", (ctx, project, q: WebRequest) =>
  analyticsWeb(ctx, project, q),
);

export const cohortCountTask = defineReadTask("analytics.cohort-count", (ctx, project, id: string) =>
  countCohort(ctx, project, id),
);

export const cohortPreviewTask = defineReadTask(
  "analytics.cohort-preview",
  (ctx, project, def: CohortDefinitionT) => previewCohort(ctx, project, def),
);

export const cohortMemberPageTask = defineReadTask(
  "analytics.cohort-members",
  (ctx, project, q: { id: string; limit?: number; cursor?: string }) =>
    cohortMemberPage(ctx, project, q.id, q),
);

export const analyticsReadTasks = [
  summaryTask,
  goalsTableTask,
  timeseriesTask,
  breakdownTask,
  funnelTask,
  retentionTask,
  attributionTask,
  pathsTask,
  trendsTask,
  webTask,
  cohortCountTask,
  cohortPreviewTask,
  cohortMemberPageTask,
  evaluateCohortTask,
  hashedMembersTask,
  exportTask,
];

/** A read worker's lead list asks analytics as the app's does (analytics' module provides the same). */
export const prepareAnalyticsReads = (worker: StateHolder) => provideLeadAnalytics(worker);
