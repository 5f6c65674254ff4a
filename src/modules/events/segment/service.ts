import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { ServiceDeps } from "../../../platform/deps.js";
import { AppError } from "../../../platform/errors.js";
import type { IngestSender } from "../../../platform/ingest-limits.js";
import { type Mapped, type MappedCall, type Refusal, ingestCall, refusal } from "../sdk-ingest.js";
import { type EventRefusal, FieldError, refusalOf } from "../validate.js";
import { type Envelope, parseTime, toIncoming, typeOf } from "./map.js";
import {
  type BatchEnvelopeT,
  type ContextT,
  MAX_BATCH_MESSAGES,
  MAX_MESSAGE_BYTES,
  MAX_PUBLIC_BATCH_MESSAGES,
  type MessageType,
  type SettingsT,
} from "./schema.js";
import { messageBytes, oversizedMessages } from "./sizes.js";

/**
 * Segment's tracking API on the one ingest pipeline: each message becomes an event written by the
 * events writer (sessions, channels, identity, conversions, experiments, attribution all apply),
 * with its messageId claimed in the same transaction (event-store/claims/dedup.ts).
 */

export interface SegmentCall {
  /** the route's message type, or a batch */
  type: MessageType | "batch";
  /** the parsed body (checked as an object; a batch's envelope checked) */
  body: unknown;
  /** the body as received, after decompression: a batch's messages are measured on it */
  rawBody: string | undefined;
  /** its UTF-8 size when the request said (Content-Length of an uncompressed body) */
  rawBytes: number | undefined;
  /** the write key, its kind and the client's address: whose budgets the messages draw on */
  sender: IngestSender;
  /** the request's User-Agent */
  userAgent: string | undefined;
}

export type { Refusal };

/**
 * Stores a call's messages once each, after commit; resolves with null, or with the refusal when a
 * message is invalid (all or none: a client fixes and resends the whole request, and messages
 * already stored would not count twice anyway). Valid messages are admitted first (admission.ts):
 * past the sender's budgets, 429 and nothing stored.
 */
export function ingestSegment(
  deps: ServiceDeps,
  project: ProjectRef,
  call: SegmentCall,
): Promise<Refusal | null> {
  return ingestCall(deps, project, call.sender, () => mapCall(call));
}

/** The call's messages as events, or the refusal naming every invalid one. */
function mapCall(call: SegmentCall): MappedCall {
  const now = Date.now();
  const batch = call.type === "batch" ? (call.body as BatchEnvelopeT) : null;
  let sentAt: number | null = null;
  try {
    sentAt = batch ? parseTime(batch.sentAt, "sentAt") : null;
  } catch (err) {
    throw err instanceof FieldError ? new AppError("VALIDATION_ERROR", err.named("body")) : err;
  }
  const env: Envelope = {
    keyKind: call.sender.keyKind,
    now,
    sentAt,
    context: (batch?.context as ContextT | null | undefined) ?? null,
    requestAgent: call.userAgent,
  };
  const messages = batch ? batch.batch : [call.body];
  if (call.sender.keyKind === "public" && messages.length > MAX_PUBLIC_BATCH_MESSAGES)
    throw new AppError(
      "PAYLOAD_TOO_LARGE",
      `body.batch holds more than ${MAX_PUBLIC_BATCH_MESSAGES} messages: the limit of a public key's batch (a secret key's: ${MAX_BATCH_MESSAGES})`,
    );
  const errors: EventRefusal[] = [];
  // A single call's body is limited to 32 KB by the route.
  const over = new Set(
    batch
      ? (oversizedMessages(call.rawBody ?? "", messages, call.rawBytes) ??
          messages.flatMap((m, i) => (messageBytes(m) > MAX_MESSAGE_BYTES ? [i] : [])))
      : [],
  );
  for (const index of over)
    errors.push({ index, code: "PAYLOAD_TOO_LARGE", message: `batch[${index}] is larger than 32 KB` });
  const web: Mapped[] = [];
  const server: Mapped[] = [];
  for (let i = 0; i < messages.length; i++) {
    if (over.has(i)) continue;
    try {
      const mapped = toIncoming(messages[i], batch ? typeOf(messages[i]) : (call.type as MessageType), env);
      (mapped.web ? web : server).push(mapped);
    } catch (err) {
      if (!(err instanceof FieldError)) throw err;
      errors.push(refusalOf(i, batch ? `batch[${i}]` : "body", err));
    }
  }
  return errors.length > 0 ? refusal(errors) : { web, server };
}

/**
 * analytics.js's source settings: "Segment.io" (the only destination) sends to this server's
 * /v1, and nothing else is loaded: no device-mode destinations, plugins, middleware or metrics.
 */
export function segmentSettings(writeKey: string, origin: { protocol: string; host: string }): SettingsT {
  return {
    integrations: {
      "Segment.io": {
        apiKey: writeKey,
        apiHost: `${origin.host}/v1`,
        protocol: origin.protocol === "http" ? "http" : "https",
        unbundledIntegrations: [],
        addBundledMetadata: true,
        maybeBundledConfigIds: {},
      },
    },
    remotePlugins: [],
    enabledMiddleware: {},
    middlewareSettings: {},
    legacyVideoPluginsEnabled: false,
    metrics: { sampleRate: 0 },
  };
}
