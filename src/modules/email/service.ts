import { stateOf } from "../../platform/deps.js";
import type { LiftMailer } from "../workspace/service.js";
import type { InlineSendBody, TemplateSendBody } from "./schema.js";
import { handleSend } from "./send.js";
import { SEND_DEPS } from "./send-deps.js";
import { validateSendBody } from "./validate.js";

/**
 * Mail Lift sends on its own behalf (an invitation; workspace/lift-mailer.ts), through the same
 * transactional path as the send API — the workspace's catalog template, its send log, its
 * suppression list, delivery retries — recorded under the key id `lift` (no API key sent it).
 */
export const LIFT_SENDER = "lift";

const OUTBOX_ONLY =
  "no mail server is configured (SMTP_URL): the message was written to the server's outbox, not sent";

/**
 * Sends a template to one recipient, strict (a variable the template uses and the mail lacks
 * refuses the send rather than mailing a broken link), or a body Lift composed itself (a
 * subscription's tiles). Links are not rewritten for click tracking and no open pixel is added:
 * Lift's own mail carries one-time tokens, which a tracked click would store in the send log in
 * clear.
 */
export const sendLiftEmail: LiftMailer = async (deps, workspaceId, mail) => {
  const body: TemplateSendBody | InlineSendBody = "commId" in mail ? { ...mail, strict: true } : mail;
  validateSendBody(body);
  const send = { ...stateOf(deps, SEND_DEPS), tracking: false };
  const res = await handleSend(
    send,
    { keyId: LIFT_SENDER, workspaceId },
    { body, idempotencyKey: undefined, mode: undefined },
  );
  const answer = JSON.parse(res.body) as
    | { send_id: string; status: string }
    | { error: { code: string; message: string } };
  if ("error" in answer) return { sendId: null, status: answer.error.code, error: answer.error.message };
  // Without SMTP_URL the message only reaches DATA_DIR/outbox: nobody receives it, so Lift's own
  // mail must not read "sent" (an invitation then says so and hands its link over instead).
  if (!deps.config.smtpUrl && (answer.status === "sent" || answer.status === "queued"))
    return { sendId: answer.send_id, status: "outbox", error: OUTBOX_ONLY };
  return { sendId: answer.send_id, status: answer.status, error: null };
};
