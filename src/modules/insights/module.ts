import type { LiftModule } from "../../platform/module.js";
import { insightJobs } from "./jobs.js";
import { insightRoutes } from "./routes.js";
import { dashboardRoutes } from "./routes-dashboards.js";
import { sharedRoutes } from "./routes-shared.js";
import { subscriptionRoutes } from "./routes-subscriptions.js";
import { SUBSCRIPTIONS_CHECK_JOB } from "./subscriptions-schema.js";

/** Saved insights, dashboards of them, a dashboard's read-only public link, and subscriptions by mail. */
export const insightsModule: LiftModule = {
  name: "insights",
  async register(app) {
    await app.register(insightRoutes);
    await app.register(dashboardRoutes);
    await app.register(sharedRoutes);
    await app.register(subscriptionRoutes);
    for (const job of insightJobs(app.deps)) app.jobs.define(job);
    app.worker.addSchedule(SUBSCRIPTIONS_CHECK_JOB, app.config.subscriptionCheckIntervalMs);
  },
};
