import type { ServiceDeps } from "../../platform/deps.js";

/** One of Lift's own mails: a template of the workspace's catalog, to one recipient. */
export interface LiftMail {
  to: string;
  /** the catalog template's id (e.g. `invite`) */
  commId: string;
  variables: Record<string, string>;
  tags: Record<string, string>;
}

export interface LiftSendOutcome {
  /** the send record, as the send log lists it (null when refused before a record existed) */
  sendId: string | null;
  /**
   * sent, queued (a delivery job keeps trying), outbox (no mail server: written to
   * DATA_DIR/outbox, received by nobody), or the refusal's code: suppressed, send_failed …
   */
  status: string;
  error: string | null;
}

export type LiftMailer = (deps: ServiceDeps, workspaceId: string, mail: LiftMail) => Promise<LiftSendOutcome>;

/**
 * How invitations are mailed. Email sends them (its catalog, send log, suppressions) but depends
 * on workspace for a key's tier, so workspace does not import email back: email's module hands
 * its sender in at registration (dependency inversion, as analytics/lead-reader.ts; imports point
 * one way). The sender takes its deps explicitly, so one serves every app in the process.
 */
let mailer: LiftMailer | null = null;

export function provideLiftMailer(m: LiftMailer): void {
  mailer = m;
}

export function liftMailer(): LiftMailer {
  if (!mailer) throw new Error("no Lift mailer: the email module provides it when it registers");
  return mailer;
}
