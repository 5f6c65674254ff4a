import type { ProjectRef } from "../../platform/auth/principal.js";
import type { ServiceDeps } from "../../platform/deps.js";
import { AppError } from "../../platform/errors.js";
import type { IngestSender } from "../../platform/ingest-limits.js";
import { admitEvents } from "./admission.js";
import type { BatchEnvelopeBody, SnippetEventBody } from "./schema.js";
import { type IncomingEvent, writerFor } from "../event-store/service.js";
import { type EventRefusal, FieldError, readBatch, snippetToIncoming } from "./validate.js";
import { addCountry } from "./geo.js";

export interface IngestCaller {
  project: ProjectRef;
  /** The project key the body carried (a page's public key, or a secret one from a server) and the client's address. */
  sender: IngestSender;
  /** The request's User-Agent: the browser that ran the snippet (a batch's is a server's). */
  userAgent: string | undefined;
}

export interface IngestResult {
  received: number;
  /** A batch's invalid events, by index; the valid ones are stored. */
  errors?: EventRefusal[];
}

/**
 * POST /api/events: one snippet event, or a batch whose valid events are stored and invalid ones
 * reported. A batch with no valid event is a 400 that lists them all. The events to store are
 * admitted first (admission.ts): past the sender's budgets, 429 and nothing stored.
 */
export async function ingest(
  deps: ServiceDeps,
  caller: IngestCaller,
  body: SnippetEventBody | BatchEnvelopeBody,
): Promise<IngestResult> {
  const now = Date.now();
  // A page's public key is anyone's: its events only fill a lead's missing properties (identity/profile.ts).
  const { sender } = caller;
  const fromPublicKey = sender.keyKind === "public";
  const writer = writerFor(deps);
  if (!("events" in body)) {
    let event: IncomingEvent;
    try {
      // A snippet event is judged by the request's User-Agent (the browser that ran the snippet).
      event = snippetToIncoming(body, caller.userAgent, now);
    } catch (err) {
      if (err instanceof FieldError) throw new AppError("VALIDATION_ERROR", err.named("body"));
      throw err;
    }
    await admitEvents(deps, caller.project, sender, 1);
    addCountry(deps, sender, [event]);
    return { received: await writer.write(caller.project, [event], "web", { fromPublicKey }) };
  }
  const defaults = { leadId: body.userId ?? null, visitorId: body.visitorId ?? null };
  // Batch events come from servers: the request's User-Agent is the server's, never judged.
  const { valid, errors } = readBatch(body.events, defaults, now);
  if (valid.length === 0)
    throw new AppError(
      "VALIDATION_ERROR",
      `no valid event in the batch: ${errors[0]!.message}`,
      {},
      { errors },
    );
  await admitEvents(deps, caller.project, sender, valid.length, [defaults.leadId]);
  addCountry(deps, sender, valid);
  const received = await writer.write(caller.project, valid, "server", { fromPublicKey });
  return { received, errors };
}
