import { type ServiceDeps, providedSlot } from "../../platform/deps.js";

/** One of Lift's own mails: a template of the workspace's catalog, to one recipient. */
export interface LiftTemplateMail {
  to: string;
  /** the catalog template's id (e.g. `invite`) */
  commId: string;
  variables: Record<string, string>;
  tags: Record<string, string>;
}

/** One of Lift's own mails whose body Lift composes itself (a dashboard's tiles), to one recipient. */
export interface LiftInlineMail {
  to: string;
  subject: string;
  html: string;
  tags: Record<string, string>;
}

export type LiftMail = LiftTemplateMail | LiftInlineMail;

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
 * How invitations are mailed: the app's `LIFT_MAILER`. Email sends them (its catalog, send log,
 * suppressions) but depends on workspace for a key's tier, so workspace does not import email
 * back: email's module provides its sender in the app's state at registration (dependency
 * inversion, as analytics' lead reader; imports point one way).
 */
export const LIFT_MAILER = providedSlot<LiftMailer>("workspace.lift-mailer", "email");
