import type { LiftModule } from "../../platform/module.js";
import { createTxKeyResolver } from "./keys.js";
import { emailJobs } from "./jobs.js";
import { type Mailer, outboxMailer, smtpMailer } from "./delivery/transport.js";
import { txAdminRoutes } from "./routes-admin.js";
import { communicationRoutes } from "./routes-communications.js";
import { emailDashboardRoutes } from "./routes-dashboard.js";
import { txSendRoutes } from "./routes-send.js";
import { trackingRoutes } from "./routes-tracking.js";
import { CLEANUP_JOB } from "./schema.js";
import type { SendDeps } from "./send.js";
import { Tracker } from "./tracking.js";
import { SendLogWriter } from "./records.js";

/** Transactional email: keys, templates, send, idempotency, delivery, tracking, suppressions. */
export const emailModule: LiftModule = {
  name: "email",
  async register(app) {
    const { config } = app;
    let mailer: Mailer | null = null;
    // Created on first use: the SMTP pool opens connections only when mail is actually sent.
    const getMailer = () => {
      mailer ??= config.smtpUrl ? smtpMailer(config.smtpUrl) : outboxMailer(config.dataDir);
      return mailer;
    };
    app.addHook("onClose", async () => mailer?.close());

    const tracker = new Tracker(app.secrets.derive("email-tracking"), config.publicUrl);
    const host = new URL(config.publicUrl).hostname || "localhost";
    const deps: SendDeps = {
      db: app.db,
      handle: app.dbHandle,
      sendLog: new SendLogWriter(app.dbHandle),
      secrets: app.secrets,
      mailer: getMailer,
      tracker,
      sandboxDomain: config.sandboxDomain,
      // The spec has no sender field; EMAIL_FROM sets the envelope sender for a deployment.
      from: config.emailFrom || `Lift <no-reply@${host.includes(".") ? host : `${host}.localdomain`}>`,
      messageDomain: host,
      inRequestDelays: config.retryScale < 1 ? [0, 20, 50] : undefined,
    };

    for (const job of emailJobs(getMailer, app.secrets)) app.jobs.define(job);
    app.worker.addSchedule(CLEANUP_JOB, 3_600_000);
    const resolveKey = createTxKeyResolver(app.dbHandle);
    await app.register(txSendRoutes, { deps, resolveKey });
    await app.register(txAdminRoutes);
    await app.register(communicationRoutes);
    await app.register(emailDashboardRoutes);
    await app.register(trackingRoutes, { tracker, resolveKey });
  },
};
