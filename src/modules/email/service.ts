import { type ServiceDeps, stateOf } from "../../platform/deps.js";
import type { TemplateSendBody } from "./schema.js";
import { handleSend } from "./send.js";
import { SEND_DEPS } from "./send-deps.js";
import { validateSendBody } from "./validate.js";

/**
 * What other modules may ask of email: mail Lift sends on its own behalf (an invitation), through
 * the same transactional path as the send API — the workspace's catalog template, its send log,
 * its suppression list, delivery retries — recorded under the key id `lift` (no API key sent it).
 */
export const LIFT_SENDER = "lift";

export interface LiftSendOutcome {
  /** the send record, as the send log lists it (null when refused before a record existed) */
  sendId: string | null;
  /** sent, queued (a delivery job keeps trying), or the refusal's code: suppressed, send_failed … */
  status: string;
  error: string | null;
}

/**
 * Sends a template to one recipient. Links are not rewritten for click tracking and no open pixel
 * is added: Lift's own mail carries one-time tokens, which a tracked click would store in the send
 * log in clear.
 */
export async function sendLiftEmail(
  deps: ServiceDeps,
  workspaceId: string,
  body: TemplateSendBody,
): Promise<LiftSendOutcome> {
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
  return { sendId: answer.send_id, status: answer.status, error: null };
}
