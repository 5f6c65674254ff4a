import type { LiftModule } from "../index.js";
import { ActiveCache } from "./active.js";
import { BANDIT_INTERVAL_MS, BANDIT_JOB, banditJob } from "./bandit.js";
import { appendEvidenceJob } from "./completion.js";
import { createExperimentProcessor } from "./processor.js";
import { experimentRoutes } from "./routes.js";

export const experimentsModule: LiftModule = {
  name: "experiments",
  async register(app) {
    const cache = new ActiveCache(app.db, app.principalResolver);
    const changed = (projectId: string) => cache.invalidate(projectId);
    app.eventBus.register("experiments", createExperimentProcessor(changed));
    app.jobs.define(appendEvidenceJob);
    app.jobs.define(banditJob(changed));
    app.worker.addSchedule(BANDIT_JOB, BANDIT_INTERVAL_MS);
    await app.register(experimentRoutes, { cache });
  },
};
