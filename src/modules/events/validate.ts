import { AppError } from "../../platform/errors.js";
import { compileSchema, firstSchemaError } from "../../platform/validation.js";
import { isBotAgent } from "./bots.js";
import {
  BatchEnvelope,
  BatchEvent,
  type BatchEventBody,
  MAX_BATCH_EVENTS,
  MAX_DATA_BYTES,
  ServerEvent,
  type ServerEventInput,
  SnippetEvent,
  type SnippetEventBody,
} from "./schema.js";

const FUTURE_SLACK_MS = 24 * 3_600_000;
const EPOCH_2000 = 946_684_800_000;

/** The visitor id of an anonymous server event (a batch event with neither visitorId nor userId). */
export const ANONYMOUS_VISITOR = "";

/** An event that passed validation, before the writer adds session and channel. */
export interface IncomingEvent {
  type: string;
  /** `ANONYMOUS_VISITOR` for an anonymous server event */
  visitorId: string;
  leadId: string | null;
  url: string;
  referrer: string | null;
  data: Record<string, unknown>;
  /** `data` serialized once, for storage */
  dataJson: string;
  ts: number;
  /** a crawler's event: the snippet's request User-Agent, a batch event's `context.userAgent` */
  isBot: boolean;
}

export interface ItemError {
  index: number;
  code: "VALIDATION_ERROR";
  message: string;
}

/** An invalid field of one event; the message names the field. */
export class FieldError extends Error {}

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
  if (check(body)) return;
  const { error, message } = firstSchemaError(check, "body");
  if (error.keyword === "maxItems" && error.instancePath === "/events")
    throw new AppError("PAYLOAD_TOO_LARGE", `body.events holds more than ${MAX_BATCH_EVENTS} events`);
  throw new AppError("VALIDATION_ERROR", message);
}

function timestamp(v: unknown, where: string, now: number): number {
  if (v === undefined || v === null) return now;
  const ms =
    typeof v === "number"
      ? v
      : /^\d{4}-\d{2}-\d{2}(T|$)/.test(v as string)
        ? Date.parse(v as string)
        : Number.NaN;
  if (!Number.isFinite(ms)) throw new FieldError(`${where}.timestamp must be an ISO 8601 date-time`);
  if (ms < EPOCH_2000 || ms > now + FUTURE_SLACK_MS)
    throw new FieldError(`${where}.timestamp is out of range (2000 to now + 1 day)`);
  return Math.floor(ms);
}

function dataOf(data: Record<string, unknown> | null | undefined, where: string) {
  if (data === undefined || data === null) return { data: {}, dataJson: "{}" };
  const dataJson = JSON.stringify(data);
  if (dataJson.length > MAX_DATA_BYTES / 4 && Buffer.byteLength(dataJson) > MAX_DATA_BYTES)
    throw new FieldError(`${where}.data is larger than 32 KiB`);
  return { data, dataJson };
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
    ...dataOf(body.data, "body"),
    ts: timestamp(body.timestamp, "body", now),
    isBot: isBotAgent(userAgent),
  };
}

export interface BatchDefaults {
  visitorId: string | null;
  leadId: string | null;
}

function batchEventToIncoming(raw: unknown, where: string, d: BatchDefaults, now: number): IncomingEvent {
  if (!checkBatchEvent(raw)) throw new FieldError(firstSchemaError(checkBatchEvent, where).message);
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
    ...dataOf(e.data, where),
    ts: timestamp(e.timestamp, where, now),
    // The end user's User-Agent an SDK forwards (Segment's `context.userAgent`).
    isBot: isBotAgent(e.context?.userAgent ?? undefined),
  };
}

/** Validates every event of a batch: valid ones in order, invalid ones as item errors. */
export function readBatch(
  events: unknown[],
  d: BatchDefaults,
  now: number,
): { valid: IncomingEvent[]; errors: ItemError[] } {
  const valid: IncomingEvent[] = [];
  const errors: ItemError[] = [];
  for (let i = 0; i < events.length; i++) {
    try {
      valid.push(batchEventToIncoming(events[i], `events[${i}]`, d, now));
    } catch (e) {
      if (!(e instanceof FieldError)) throw e;
      errors.push({ index: i, code: "VALIDATION_ERROR", message: e.message });
    }
  }
  return { valid, errors };
}

/**
 * A server-side event of another module (webhooks in, connectors): visitorId or leadId, url
 * optional; an event with only a leadId gets the visitor id `lead:<leadId>`.
 */
export function serverEventToIncoming(raw: ServerEventInput, where: string, now: number): IncomingEvent {
  if (!checkServerEvent(raw)) throw new FieldError(firstSchemaError(checkServerEvent, where).message);
  const leadId = raw.leadId ?? null;
  const visitorId = raw.visitorId ?? (leadId !== null ? `lead:${leadId}` : null);
  if (visitorId === null) throw new FieldError(`${where}.visitorId is required`);
  return {
    type: raw.type,
    visitorId,
    leadId,
    url: raw.url ?? "",
    referrer: null,
    ...dataOf(raw.data, where),
    ts: timestamp(raw.timestamp, where, now),
    isBot: false,
  };
}
