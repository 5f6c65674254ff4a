import { projectKeyKind } from "../../platform/auth/keys.js";
import { AppError } from "../../platform/errors.js";
import { compileSchema, firstSchemaError } from "../../platform/validation.js";
import type { IncomingEvent } from "../event-store/service.js";
import { isBotAgent } from "./bots.js";
import {
  BatchEnvelope,
  BatchEvent,
  type BatchEventBody,
  MAX_BATCH_EVENTS,
  MAX_DATA_BYTES,
  MAX_PUBLIC_BATCH_EVENTS,
  ServerEvent,
  type ServerEventInput,
  SnippetEvent,
  type SnippetEventBody,
} from "./schema.js";

const FUTURE_SLACK_MS = 24 * 3_600_000;
const EPOCH_2000 = 946_684_800_000;

/** The visitor id of an anonymous server event (a batch event with neither visitorId nor userId). */
export const ANONYMOUS_VISITOR = "";

/**
 * What is wrong with one event of a batch: the per-event refusal of POST /api/events (its batch
 * keeps the valid events and lists these) and of Segment's calls (which store none then), on the
 * wire as `errors: [{index, code, message}]`.
 */
export interface EventRefusal {
  index: number;
  /** PAYLOAD_TOO_LARGE: a Segment message over its size limit */
  code: "VALIDATION_ERROR" | "PAYLOAD_TOO_LARGE";
  /** the field at fault, named where the event sits (`events[3].url is required`) */
  message: string;
}

/**
 * An invalid field of one event. The message starts with the field's path inside the event
 * (`.url is required`, or ` must be an object` for the event itself); the caller puts the event's
 * name in front (`body`, `events[3]`), so nothing is built per event unless it fails.
 */
export class FieldError extends Error {
  named(where: string): string {
    return `${where}${this.message}`;
  }
}

/** The refusal of the event at `index` for its invalid field, named as `where` (`events[3]`). */
export const refusalOf = (index: number, where: string, err: FieldError): EventRefusal => ({
  index,
  code: "VALIDATION_ERROR",
  message: err.named(where),
});

// The schemas in schema.ts are the contract; these are their compiled checks. What a schema
// cannot say (a time relative to now, the byte size of `data`) is checked in `toIncoming`.
const checkSnippet = compileSchema(SnippetEvent);
const checkEnvelope = compileSchema(BatchEnvelope);
const checkBatchEvent = compileSchema(BatchEvent);
const checkServerEvent = compileSchema(ServerEvent);

/**
 * The route's validator: a body with `events` is a batch (its envelope is checked here, each event
 * later by `readBatch`), anything else one snippet event. Throws the error Fastify answers with.
 */
export function validateIngestBody(body: unknown): void {
  const batch = typeof body === "object" && body !== null && "events" in body;
  const check = batch ? checkEnvelope : checkSnippet;
  if (check(body)) {
    const { projectKey, events } = body as { projectKey: string; events?: unknown[] };
    // Before the key is resolved (the guard reads the validated body): judged by its prefix.
    if (events && events.length > MAX_PUBLIC_BATCH_EVENTS && projectKeyKind(projectKey) === "public")
      throw new AppError(
        "PAYLOAD_TOO_LARGE",
        `body.events holds more than ${MAX_PUBLIC_BATCH_EVENTS} events: the limit of a public key's batch (a secret key's: ${MAX_BATCH_EVENTS})`,
      );
    return;
  }
  const { error, message } = firstSchemaError(check, "body");
  if (error.keyword === "maxItems" && error.instancePath === "/events")
    throw new AppError("PAYLOAD_TOO_LARGE", `body.events holds more than ${MAX_BATCH_EVENTS} events`);
  throw new AppError("VALIDATION_ERROR", message);
}

function timestamp(v: unknown, now: number): number {
  if (v === undefined || v === null) return now;
  const ms =
    typeof v === "number"
      ? v
      : /^\d{4}-\d{2}-\d{2}(T|$)/.test(v as string)
        ? Date.parse(v as string)
        : Number.NaN;
  if (!Number.isFinite(ms)) throw new FieldError(".timestamp must be an ISO 8601 date-time");
  if (ms < EPOCH_2000 || ms > now + FUTURE_SLACK_MS)
    throw new FieldError(".timestamp is out of range (2000 to now + 1 day)");
  return Math.floor(ms);
}

/** `data` as stored (serialized once); refuses more than 32 KiB. */
function dataJsonOf(data: Record<string, unknown> | null | undefined): string {
  if (data === undefined || data === null) return "{}";
  const json = JSON.stringify(data);
  if (json.length > MAX_DATA_BYTES / 4 && Buffer.byteLength(json) > MAX_DATA_BYTES)
    throw new FieldError(".data is larger than 32 KiB");
  return json;
}

/** A snippet event the route's validator accepted, as stored; judged by the request's User-Agent. */
export function snippetToIncoming(
  body: Omit<SnippetEventBody, "projectKey">,
  userAgent: string | undefined,
  now: number,
): IncomingEvent {
  return {
    type: body.type,
    visitorId: body.visitorId,
    leadId: null,
    url: body.url,
    referrer: body.referrer || null,
    data: body.data ?? {},
    dataJson: dataJsonOf(body.data),
    ts: timestamp(body.timestamp, now),
    isBot: isBotAgent(userAgent),
    userAgent: userAgent ?? null,
  };
}

export interface BatchDefaults {
  visitorId: string | null;
  leadId: string | null;
}

function batchEventToIncoming(raw: unknown, d: BatchDefaults, now: number): IncomingEvent {
  if (!checkBatchEvent(raw)) throw new FieldError(firstSchemaError(checkBatchEvent, "").message);
  const e = raw as BatchEventBody;
  const leadId = d.leadId;
  // An event with neither visitorId nor userId is an anonymous server event.
  const visitorId = e.visitorId || d.visitorId || (leadId !== null ? `lead:${leadId}` : ANONYMOUS_VISITOR);
  return {
    type: e.type,
    visitorId,
    leadId,
    url: e.url,
    referrer: e.referrer || null,
    data: e.data ?? {},
    dataJson: dataJsonOf(e.data),
    ts: timestamp(e.timestamp, now),
    // The end user's User-Agent an SDK forwards (Segment's `context.userAgent`).
    isBot: isBotAgent(e.context?.userAgent ?? undefined),
    userAgent: null,
  };
}

/** Validates every event of a batch: valid ones in order, invalid ones as refusals. */
export function readBatch(
  events: unknown[],
  d: BatchDefaults,
  now: number,
): { valid: IncomingEvent[]; errors: EventRefusal[] } {
  const valid: IncomingEvent[] = [];
  const errors: EventRefusal[] = [];
  for (let i = 0; i < events.length; i++) {
    try {
      valid.push(batchEventToIncoming(events[i], d, now));
    } catch (e) {
      if (!(e instanceof FieldError)) throw e;
      errors.push(refusalOf(i, `events[${i}]`, e));
    }
  }
  return { valid, errors };
}

/**
 * A server-side event of another module (webhooks in, connectors): visitorId or leadId, url
 * optional; an event with only a leadId gets the visitor id `lead:<leadId>`.
 */
export function serverEventToIncoming(raw: ServerEventInput, now: number): IncomingEvent {
  if (!checkServerEvent(raw)) throw new FieldError(firstSchemaError(checkServerEvent, "").message);
  const leadId = raw.leadId ?? null;
  const visitorId = raw.visitorId ?? (leadId !== null ? `lead:${leadId}` : null);
  if (visitorId === null) throw new FieldError(".visitorId is required");
  return {
    type: raw.type,
    visitorId,
    leadId,
    url: raw.url ?? "",
    referrer: null,
    data: raw.data ?? {},
    dataJson: dataJsonOf(raw.data),
    ts: timestamp(raw.timestamp, now),
    isBot: false,
    userAgent: null,
  };
}
