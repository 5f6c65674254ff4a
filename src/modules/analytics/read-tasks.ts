import { defineReadTask } from "../../platform/read-pool/task.js";
import { exportTask } from "./export.js";
import type { CohortDefinitionT } from "./cohort-schema.js";
import { cohortMemberPage, countCohort, evaluateCohortTask, previewCohort } from "./cohorts.js";
import type { BreakdownDimension, FunnelBreakdown } from "./dimensions.js";
import type { Condition } from "./filter.js";
import type { FunnelStep } from "./funnel.js";
import type { AttributionModel } from "./models.js";
import { type PathsQuery, analyticsPaths } from "./paths.js";
import type { Period } from "./period.js";
import { goalsTable } from "./goals-table.js";
import {
  attributionReport,
  breakdownReport,
  funnelReport,
  retentionReport,
  summaryReport,
  timeseriesReport,
} from "./reports.js";
import type { RetentionInterval } from "./retention.js";
import type { Interval } from "./timeseries.js";

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

export const summaryTask = defineReadTask("analytics.summary", ({ db }, project, q: Counted) =>
  summaryReport(db, project, q.period, q.conds, q.goal),
);

export const goalsTableTask = defineReadTask("analytics.goals", ({ db }, project, q: Filtered) =>
  goalsTable(db, project, q.period, q.conds),
);

export const timeseriesTask = defineReadTask(
  "analytics.timeseries",
  ({ db }, project, q: Counted & { interval: Interval }) =>
    timeseriesReport(db, project, q.period, q.interval, q.conds, q.goal),
);

export const breakdownTask = defineReadTask(
  "analytics.breakdown",
  ({ db }, project, q: Counted & { by: BreakdownDimension; limit: number }) =>
    breakdownReport(db, project, q.by, q.period, q.limit, q.conds, q.goal),
);

export const funnelTask = defineReadTask(
  "analytics.funnel",
  (
    { db },
    project,
    q: Filtered & { steps: FunnelStep[]; windowDays: number; breakdownBy?: FunnelBreakdown },
  ) => funnelReport(db, project, q.steps, q.windowDays, q.period, q.breakdownBy, q.conds),
);

export const retentionTask = defineReadTask(
  "analytics.retention",
  (
    { db },
    project,
    q: Filtered & { interval: RetentionInterval; startEvent: string; returnEvent: string | null },
  ) => retentionReport(db, project, q.period, q.interval, q.startEvent, q.returnEvent, q.conds),
);

export const attributionTask = defineReadTask(
  "analytics.attribution",
  ({ db }, project, q: Counted & { model: AttributionModel }) =>
    attributionReport(db, project, q.model, q.period, q.conds, q.goal),
);

export const pathsTask = defineReadTask(
  "analytics.paths",
  ({ db }, project, q: Filtered & { query: PathsQuery }) =>
    analyticsPaths(db, project, q.query, q.period, q.conds),
);

export const cohortCountTask = defineReadTask("analytics.cohort-count", ({ db }, project, id: string) =>
  countCohort(db, project, id),
);

export const cohortPreviewTask = defineReadTask(
  "analytics.cohort-preview",
  ({ db }, project, def: CohortDefinitionT) => previewCohort(db, project, def),
);

export const cohortMemberPageTask = defineReadTask(
  "analytics.cohort-members",
  ({ db }, project, q: { id: string; limit?: number; cursor?: string }) =>
    cohortMemberPage(db, project, q.id, q),
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
  cohortCountTask,
  cohortPreviewTask,
  cohortMemberPageTask,
  evaluateCohortTask,
  exportTask,
];
