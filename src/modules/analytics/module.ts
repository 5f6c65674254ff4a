import type { LiftModule } from "../../platform/module.js";
import { registerGoalMetricProvider } from "../goals/service.js";
import { onIdentityChanges } from "../identity/service.js";
import { applyIdentityChanges } from "./ingest/identity-changes.js";
import { provideLeadAnalytics } from "./lead-analytics.js";
import { ENGINE_CHANGES_EXPIRY_JOB } from "./engine/changes.js";
import { ANALYTICS_GOAL_METRICS, goalMetric } from "./reports/goal-metrics.js";
import { analyticsJobs } from "./jobs.js";
import { createAnalyticsProcessor } from "./ingest/processor.js";
import { analyticsRoutes } from "./routes.js";
import { annotationRoutes } from "./annotations/routes.js";
import { cohortRoutes } from "./cohorts/routes.js";
import { exploreRoutes } from "./routes-explore.js";
import { exportRoutes } from "./routes-export.js";
import { trendsRoutes } from "./routes-trends.js";
import { webRoutes } from "./routes-web.js";

export const analyticsModule: LiftModule = {
  name: "analytics",
  async register(app) {
    // Identity's changes (leads created or moved, visitors linked) become analytics' daily leads and
    // links in identity's transaction; in a flush that is the identity step, before this one runs.
    onIdentityChanges(app.deps, applyIdentityChanges);
    // Reads the visitor → lead links (a batch's userId) to key touchpoints and conversions.
    app.eventBus.register("analytics", createAnalyticsProcessor(app.dbHandle), ["identity"]);
    // The lead list's report filter and conversion totals (identity/lead-analytics.ts).
    provideLeadAnalytics(app.deps);
    registerGoalMetricProvider(app.deps, goalMetric, ANALYTICS_GOAL_METRICS);
    // Recounts of conversion goals from stored events: the goals module queues them.
    for (const job of analyticsJobs(app.deps)) app.jobs.define(job);
    app.worker.addSchedule(ENGINE_CHANGES_EXPIRY_JOB, 3_600_000);
    await app.register(analyticsRoutes);
    await app.register(cohortRoutes);
    await app.register(exploreRoutes);
    await app.register(trendsRoutes);
    await app.register(webRoutes);
    await app.register(exportRoutes);
    await app.register(annotationRoutes);
  },
};
