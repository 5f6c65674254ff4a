import type { LiftModule } from "../../platform/module.js";
import { goalJobs } from "./jobs.js";
import { goalRoutes } from "./routes.js";
import { REFRESH_ALL_JOB } from "./schema.js";

export const goalsModule: LiftModule = {
  name: "goals",
  async register(app) {
    await app.register(goalRoutes);
    for (const job of goalJobs(app.deps)) app.jobs.define(job);
    app.worker.addSchedule(REFRESH_ALL_JOB, 3_600_000);
  },
};
