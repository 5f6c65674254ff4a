import type { LiftModule } from "../../platform/module.js";
import { createTxKeyResolver } from "./keys.js";
import { emailJobs } from "./jobs.js";
import { txAdminRoutes } from "./routes-admin.js";
import { communicationRoutes } from "./routes-communications.js";
import { emailDashboardRoutes } from "./routes-dashboard.js";
import { txSendRoutes } from "./routes-send.js";
import { trackingRoutes } from "./routes-tracking.js";
import { CLEANUP_JOB } from "./schema.js";
import { SEND_DEPS } from "./send-deps.js";
import { provide, stateOf } from "../../platform/deps.js";
import { LIFT_MAILER } from "../workspace/service.js";
import { sendLiftEmail } from "./service.js";

/** Transactional email: keys, templates, send, idempotency, delivery, tracking, suppressions. */
export const emailModule: LiftModule = {
  name: "email",
  async register(app) {
    const deps = stateOf(app.deps, SEND_DEPS);
    // Workspace's invitations are mailed through this (workspace/lift-mailer.ts).
    provide(app.deps, LIFT_MAILER, sendLiftEmail);
    app.addHook("onClose", async () => deps.closeMailer());

    for (const job of emailJobs(deps.mailer, app.secrets)) app.jobs.define(job);
    app.worker.addSchedule(CLEANUP_JOB, 3_600_000);
    const resolveKey = createTxKeyResolver(app.dbHandle);
    await app.register(txSendRoutes, { deps, resolveKey });
    await app.register(txAdminRoutes);
    await app.register(communicationRoutes);
    await app.register(emailDashboardRoutes);
    await app.register(trackingRoutes, { tracker: deps.tracker, resolveKey });
  },
};
