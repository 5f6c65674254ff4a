import type { ProjectRef } from "../../platform/auth/principal.js";
import type { ServiceDeps } from "../../platform/deps.js";
import { AppError } from "../../platform/errors.js";
import { writeEvents } from "../event-store/service.js";
import type { ServerEventInput } from "./schema.js";
import { FieldError, serverEventToIncoming } from "./validate.js";

export { type IngestResult, ingest } from "./ingest.js";
export { KNOWN_LEADS, type KnownLeads } from "./admission.js";

/**
 * Ingests server-side events through the same writer and processors as POST /api/events, as
 * server events (no session, no touchpoint, never a first touch); an event with only a leadId gets
 * the visitor id `lead:<leadId>`. Throws VALIDATION_ERROR naming the field.
 */
export async function ingestServerEvents(
  deps: ServiceDeps,
  project: ProjectRef,
  events: ServerEventInput[],
): Promise<number> {
  const now = Date.now();
  const incoming = events.map((e, i) => {
    try {
      return serverEventToIncoming(e, now);
    } catch (err) {
      if (err instanceof FieldError) throw new AppError("VALIDATION_ERROR", err.named(`events[${i}]`));
      throw err;
    }
  });
  return writeEvents(deps, project, incoming, "server");
}

/** The bodies PostHog's SDKs send (gzip, gzip-js, a base64 form) as JSON: flags reads its `/flags` with it. */
export { decodeBody as decodePostHogBody, isPlainJson as isPlainPostHogJson } from "./posthog/body.js";

/** PostHog's groups without a person: their stored traits, for PostHog's `/flags` (flags module). */
export { groupTraitsOf as postHogGroupTraits } from "./posthog/groups-store.js";
