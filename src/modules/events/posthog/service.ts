import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { ServiceDeps } from "../../../platform/deps.js";
import { AppError } from "../../../platform/errors.js";
import type { IngestSender } from "../../../platform/ingest-limits.js";
import { type Mapped, type MappedCall, type Refusal, ingestCall, refusal } from "../sdk-ingest.js";
import { parseTime } from "../segment/map.js";
import { MAX_BATCH_MESSAGES, MAX_MESSAGE_BYTES, MAX_PUBLIC_BATCH_MESSAGES } from "../segment/schema.js";
import { messageBytes, oversizedMessages } from "../segment/sizes.js";
import { type EventRefusal, FieldError, refusalOf } from "../validate.js";
import { storeGroupTraits } from "./groups-store.js";
import { type Envelope, standaloneGroups, toIncoming } from "./map.js";
import type { RemoteConfigT } from "./schema.js";

/**
 * PostHog's capture API on the one ingest pipeline, as Segment's (segment/service.ts): each event
 * becomes a Lift event written by the events writer, its uuid claimed in the same transaction.
 */

export interface PostHogCall {
  /** the parsed body: a batch `{batch}`, an array of events, or one event */
  body: unknown;
  /** the body as decoded: a batch's events are measured on it */
  rawBody: string | undefined;
  /** its UTF-8 size */
  rawBytes: number | undefined;
  /** the client's time of sending from the query (posthog-js's `sent_at` or `_`, epoch ms), if any */
  sentAtQuery: unknown;
  sender: IngestSender;
  userAgent: string | undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** The body's events and where they sit, for error messages; throws 400 for another shape. */
export function eventsOf(body: unknown): { events: unknown[]; where: string | null } {
  if (Array.isArray(body)) return { events: body, where: "" };
  if (isObject(body) && "batch" in body) {
    if (!Array.isArray(body.batch)) throw new AppError("VALIDATION_ERROR", "body.batch must be an array");
    return { events: body.batch, where: "batch" };
  }
  if (isObject(body)) return { events: [body], where: null };
  throw new AppError("VALIDATION_ERROR", "body must be an event, an array of events or a batch object");
}

/**
 * The key a body names: `api_key` (or `token`) on the body, else on its first event, in the
 * event's properties as posthog-js sends it (`token`). The first one found names the project.
 */
export function keyOfBody(body: unknown): unknown {
  if (isObject(body) && (body.api_key ?? body.token ?? body.$token) !== undefined)
    return body.api_key ?? body.token ?? body.$token;
  const first = Array.isArray(body)
    ? body[0]
    : isObject(body) && Array.isArray(body.batch)
      ? body.batch[0]
      : body;
  if (!isObject(first)) return undefined;
  return first.api_key ?? first.$token ?? (isObject(first.properties) ? first.properties.token : undefined);
}

/**
 * Stores a call's events once each, after commit (and a secret key's standalone groups' traits);
 * resolves with null, or with the refusal when an event is invalid (all or none, as Segment's
 * API). Admitted first (admission.ts): past the sender's budgets, 429 and nothing stored.
 */
export async function ingestPostHog(
  deps: ServiceDeps,
  project: ProjectRef,
  call: PostHogCall,
): Promise<Refusal | null> {
  const refused = await ingestCall(deps, project, call.sender, () => mapCall(call));
  // A server's groups without a person keep their traits (groups-store.ts), once the events are stored:
  // a retry stores its events once and merges the same traits again, which changes nothing.
  if (refused === null && call.sender.keyKind === "secret")
    await storeGroupTraits(deps.db, project, standaloneGroups(eventsOf(call.body).events));
  return refused;
}

function mapCall(call: PostHogCall): MappedCall {
  const { events, where } = eventsOf(call.body);
  const name = (i: number) => (where === null ? "body" : `${where}[${i}]`);
  if (events.length === 0) throw new AppError("VALIDATION_ERROR", "body holds no events");
  const max = call.sender.keyKind === "public" ? MAX_PUBLIC_BATCH_MESSAGES : MAX_BATCH_MESSAGES;
  // Too many events is a batch too large, as too many bytes (413: the SDKs split or drop it).
  if (events.length > max)
    throw new AppError(
      "PAYLOAD_TOO_LARGE",
      `the request holds more than ${max} events${call.sender.keyKind === "public" ? `: the limit of a public key's batch (a secret key's: ${MAX_BATCH_MESSAGES})` : ""}`,
    );
  let sentAt: number | null;
  try {
    const body = call.body as { sent_at?: unknown };
    sentAt =
      parseTime(where === "batch" ? body.sent_at : undefined, "sent_at") ??
      (typeof call.sentAtQuery === "string" && /^\d{12,14}$/.test(call.sentAtQuery)
        ? Number(call.sentAtQuery)
        : null);
  } catch (err) {
    throw err instanceof FieldError ? new AppError("VALIDATION_ERROR", err.named("body")) : err;
  }
  const env: Envelope = {
    keyKind: call.sender.keyKind,
    now: Date.now(),
    sentAt,
    requestAgent: call.userAgent,
  };
  const errors: EventRefusal[] = [];
  // Segment's 32 KB an event, measured on the text where it can be (segment/sizes.ts).
  const over = new Set(
    where === "batch"
      ? (oversizedMessages(call.rawBody ?? "", events, call.rawBytes) ?? oversized(events))
      : events.length > 1
        ? oversized(events)
        : [],
  );
  for (const index of over)
    errors.push({ index, code: "PAYLOAD_TOO_LARGE", message: `${name(index)} is larger than 32 KB` });
  const web: Mapped[] = [];
  const server: Mapped[] = [];
  for (let i = 0; i < events.length; i++) {
    if (over.has(i)) continue;
    try {
      const m = toIncoming(events[i], env);
      (m.web ? web : server).push(m);
    } catch (err) {
      if (!(err instanceof FieldError)) throw err;
      errors.push(refusalOf(i, name(i), err));
    }
  }
  return errors.length > 0 ? refusal(errors) : { web, server };
}

const oversized = (events: unknown[]) =>
  events.flatMap((m, i) => (messageBytes(m) > MAX_MESSAGE_BYTES ? [i] : []));

/**
 * posthog-js's remote config: events, autocapture and feature flags (`/flags`, served by the flags
 * module) from this server, gzip-js offered, and nothing else (no recordings, surveys, site apps),
 * so it loads no other script or endpoint.
 */
export function remoteConfig(token: string): RemoteConfigT {
  return {
    token,
    supportedCompression: ["gzip-js", "base64"],
    hasFeatureFlags: true,
    autocapture_opt_out: false,
    capturePerformance: false,
    autocaptureExceptions: false,
    heatmaps: false,
    sessionRecording: false,
    surveys: false,
    siteApps: [],
    elementsChainAsString: true,
  };
}

/** The same config as the script posthog-js loads first (`config.js`), for its own token. */
export function remoteConfigScript(token: string): string {
  // JSON is a JavaScript expression; `<` escaped so the text never closes a script element.
  const json = (v: unknown) => JSON.stringify(v).replaceAll("<", "\\u003c");
  return `(function(){var c=window._POSTHOG_REMOTE_CONFIG=window._POSTHOG_REMOTE_CONFIG||{};c[${json(token)}]={config:${json(remoteConfig(token))},siteApps:[]};})();\n`;
}
