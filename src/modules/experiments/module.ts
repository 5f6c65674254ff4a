import type { LiftModule } from "../../platform/module.js";
import { ActiveCache } from "./active.js";
import { BANDIT_INTERVAL_MS } from "./bandit.js";
import { experimentJobs } from "./jobs.js";
import { createExperimentProcessor } from "./processor.js";
import { experimentRoutes } from "./routes.js";
import { BANDIT_JOB } from "./schema.js";
import { experimentChanged } from "./service.js";

export const experimentsModule: LiftModule = {
  name: "experiments",
  async register(app) {
    const cache = new ActiveCache(app.db, app.principalResolver);
    const changed = (projectId: string) => {
      cache.invalidate(projectId);
      experimentChanged(app.deps, projectId);
    };
    app.eventBus.register("experiments", createExperimentProcessor(changed));
    for (const job of experimentJobs(changed)) app.jobs.define(job);
    app.worker.addSchedule(BANDIT_JOB, BANDIT_INTERVAL_MS);
    await app.register(experimentRoutes, { cache, changed });
  },
};
