import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { ServiceDeps } from "../../../platform/deps.js";
import { AppError } from "../../../platform/errors.js";
import type { IngestSender } from "../../../platform/ingest-limits.js";
import { admitEvents } from "../admission.js";
import { writeEvents } from "../service.js";
import { type EventRefusal, FieldError, type IncomingEvent, refusalOf } from "../validate.js";
import { type Envelope, type Mapped, parseTime, toIncoming, typeOf } from "./map.js";
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
 * with its messageId claimed in the same transaction (dedup.ts).
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

/**
 * A refused request: nothing was stored. Its `errors` are the per-event refusals of
 * POST /api/events' batches (`EventRefusal`), one per message at fault.
 */
export interface Refusal {
  status: 400 | 413;
  body: { error: string; code: EventRefusal["code"]; status: 400 | 413; errors: EventRefusal[] };
}

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
  let mapped: { web: Mapped[]; server: Mapped[] } | Refusal;
  try {
    mapped = mapCall(call);
  } catch (err) {
    return Promise.reject(err);
  }
  if ("status" in mapped) return Promise.resolve(mapped);
  const { web, server } = mapped;
  return admitEvents(deps, project, call.sender, web.length + server.length, leadIdsOf(web, server)).then(
    () => writeMapped(deps, project, web, server, call.sender.keyKind),
  );
}

function* leadIdsOf(...lists: Mapped[][]): Generator<string | null> {
  for (const list of lists) for (const m of list) yield m.event.leadId;
}

function writeMapped(
  deps: ServiceDeps,
  project: ProjectRef,
  web: Mapped[],
  server: Mapped[],
  keyKind: IngestSender["keyKind"],
): Promise<null> {
  // Pageviews are web visits, the rest server events: two writes, each claiming its keys. Nothing
  // holds the parsed body while they commit: most of it (context, library, metadata) is not
  // stored, and dies young rather than surviving scavenges (callers drop their reference too).
  // A page's public key only fills a lead's missing properties, whatever the call (identity/profile.ts).
  const fromPublicKey = keyKind === "public";
  return Promise.all([
    write(deps, project, web, "web", fromPublicKey),
    write(deps, project, server, "server", fromPublicKey),
  ]).then(() => null);
}

/** The call's messages as events, or the refusal naming every invalid one. */
function mapCall(call: SegmentCall): { web: Mapped[]; server: Mapped[] } | Refusal {
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

function write(
  deps: ServiceDeps,
  project: ProjectRef,
  list: Mapped[],
  origin: "web" | "server",
  fromPublicKey: boolean,
) {
  if (list.length === 0) return 0;
  const events: IncomingEvent[] = new Array(list.length);
  const ids: (string | null)[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) {
    events[i] = list[i]!.event;
    ids[i] = list[i]!.messageId;
  }
  return writeEvents(deps, project, events, origin, { messageIds: ids, fromPublicKey });
}

/** 413 when a message is over Segment's size limit, else 400; the error names the first message. */
function refusal(errors: EventRefusal[]): Refusal {
  errors.sort((a, b) => a.index - b.index);
  const first = errors.find((e) => e.code === "PAYLOAD_TOO_LARGE") ?? errors[0]!;
  const status = first.code === "PAYLOAD_TOO_LARGE" ? 413 : 400;
  const error =
    errors.length === 1 ? first.message : `${errors.length} invalid messages, none stored; ${first.message}`;
  return { status, body: { error, code: first.code, status, errors } };
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
