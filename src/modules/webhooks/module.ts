import type { LiftModule } from "../../platform/module.js";
import { fanOut } from "./delivery.js";
import { webhookJobs } from "./jobs.js";
import { incomingRoutes } from "./incoming/routes.js";
import { webhookRoutes } from "./routes.js";

export const webhooksModule: LiftModule = {
  name: "webhooks",
  async register(app) {
    if (app.config.allowPrivateWebhookTargets) {
      app.log.warn(
        "ALLOW_PRIVATE_WEBHOOK_TARGETS is on: webhooks may target private addresses (development only)",
      );
    }
    for (const job of webhookJobs(app.deps)) app.jobs.define(job);
    app.jobs.onServiceEvent((event) => fanOut(app.db, event));
    await app.register(webhookRoutes);
    await app.register(incomingRoutes);
  },
};
