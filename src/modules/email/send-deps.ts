import { appSlot } from "../../platform/deps.js";
import { type Mailer, outboxMailer, smtpMailer } from "../../platform/mail/smtp.js";
import { SendLogWriter } from "./records.js";
import type { SendDeps } from "./send.js";
import { Tracker } from "../../platform/mail/tracking.js";

/**
 * The send path's dependencies, one per app: the send endpoint and Lift's own mail (invitations,
 * service.ts) share the mailer, the send-log writer and the tracker.
 */
export const SEND_DEPS = appSlot("email.send", (deps): SendDeps & { closeMailer(): Promise<void> } => {
  const { config } = deps;
  let mailer: Mailer | null = null;
  // Created on first use: the SMTP pool opens connections only when mail is actually sent.
  const getMailer = () => {
    mailer ??= config.smtpUrl ? smtpMailer(config.smtpUrl) : outboxMailer(config.dataDir);
    return mailer;
  };
  const host = new URL(config.publicUrl).hostname || "localhost";
  return {
    db: deps.db,
    handle: deps.dbHandle,
    sendLog: new SendLogWriter(deps.dbHandle),
    secrets: deps.secrets,
    mailer: getMailer,
    // Its links are served by routes-tracking.ts.
    tracker: new Tracker(deps.secrets.derive("email-tracking"), `${config.publicUrl}/api/transactional/t`),
    sandboxDomain: config.sandboxDomain,
    // The spec has no sender field; EMAIL_FROM sets the envelope sender for a deployment.
    from: config.emailFrom || `Lift <no-reply@${host.includes(".") ? host : `${host}.localdomain`}>`,
    messageDomain: host,
    inRequestDelays: config.retryScale < 1 ? [0, 20, 50] : undefined,
    closeMailer: async () => mailer?.close(),
  };
});
