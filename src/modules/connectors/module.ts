import type { LiftModule } from "../index.js";
import { bridge } from "./bridge.js";
import { goalMetric } from "./metrics.js";
import { connectorRoutes } from "./routes.js";
import { SYNC_ALL_JOB, SYNC_JOB, SYNC_RETRY, runSync, syncAllProjects } from "./sync.js";
import { defineJob } from "../../platform/jobs.js";

export const connectorsModule: LiftModule = {
  name: "connectors",
  async register(app) {
    await app.register(connectorRoutes);
    app.jobs.define(
      defineJob<{ connectorId: string; syncId: string }>({
        type: SYNC_JOB,
        retry: SYNC_RETRY,
        run: (payload, ctx) => runSync(app, payload, ctx),
      }),
    );
    app.jobs.define(defineJob({ type: SYNC_ALL_JOB, retry: [60], run: () => syncAllProjects(app) }));
    app.worker.addSchedule(SYNC_ALL_JOB, app.config.syncIntervalMs);
    // Goals reads `mrr` and payments/CRM revenue through this provider.
    bridge.registerGoalMetricProvider(app, goalMetric);
  },
};
