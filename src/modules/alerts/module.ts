import type { LiftModule } from "../../platform/module.js";
import { alertJobs } from "./jobs.js";
import { alertRoutes } from "./routes.js";
import { CHECK_ALL_JOB } from "./schema.js";

/** Alerts: a condition on one trend series, checked on a schedule, notifying by mail and webhook. */
export const alertsModule: LiftModule = {
  name: "alerts",
  async register(app) {
    await app.register(alertRoutes);
    for (const job of alertJobs(app.deps)) app.jobs.define(job);
    app.worker.addSchedule(CHECK_ALL_JOB, app.config.alertCheckIntervalMs);
  },
};
