import type { LiftModule } from "../../platform/module.js";
import { bridge } from "./bridge.js";
import { CONNECTOR_GOAL_METRICS, goalMetric } from "./metrics.js";
import { connectorRoutes } from "./routes.js";
import { connectorJobs } from "./jobs.js";
import { SYNC_ALL_JOB } from "./schema.js";

export const connectorsModule: LiftModule = {
  name: "connectors",
  async register(app) {
    await app.register(connectorRoutes);
    for (const job of connectorJobs(app.deps)) app.jobs.define(job);
    app.worker.addSchedule(SYNC_ALL_JOB, app.config.syncIntervalMs);
    // Goals reads `mrr` and payments/CRM revenue through this provider.
    bridge.registerGoalMetricProvider(app.deps, goalMetric, CONNECTOR_GOAL_METRICS);
  },
};
