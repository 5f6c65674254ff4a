import { AppError } from "../../platform/errors.js";
import { isBotAgent } from "./bots.js";

export const MAX_BATCH_EVENTS = 1000;
export const MAX_DATA_BYTES = 32 * 1024;
const MAX_TEXT = 200;
const MAX_URL = 4096;
const FUTURE_SLACK_MS = 24 * 3_600_000;
const EPOCH_2000 = 946_684_800_000;
// Any absolute URL (http, https, app schemes of mobile SDKs); parsing happens only at session start.
const ABSOLUTE_URL = /^[a-z][a-z0-9+.-]*:\S+$/i;

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

export interface Envelope {
  projectKey: string;
  batch: boolean;
}

type Obj = Record<string, unknown>;

/** An invalid field of one event; the message names the field. */
export class FieldError extends Error {}
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** Checks the request's outer shape (before the key lookup): a JSON object with a projectKey. */
export function readEnvelope(body: unknown): Envelope {
  if (!isObj(body)) throw new AppError("VALIDATION_ERROR", "body must be a JSON object");
  const key = body.projectKey;
  if (key === undefined) throw new AppError("VALIDATION_ERROR", "body.projectKey is required");
  if (typeof key !== "string" || key.length === 0 || key.length > MAX_TEXT)
    throw new AppError("VALIDATION_ERROR", "body.projectKey must be a non-empty string");
  const batch = body.events !== undefined;
  if (batch) {
    if (!Array.isArray(body.events)) throw new AppError("VALIDATION_ERROR", "body.events must be an array");
    if (body.events.length === 0) throw new AppError("VALIDATION_ERROR", "body.events must not be empty");
    if (body.events.length > MAX_BATCH_EVENTS)
      throw new AppError("PAYLOAD_TOO_LARGE", `body.events holds more than ${MAX_BATCH_EVENTS} events`);
    for (const f of ["userId", "visitorId"] as const) {
      const v = body[f];
      if (v !== undefined && (typeof v !== "string" || v.length === 0 || v.length > MAX_TEXT))
        throw new AppError(
          "VALIDATION_ERROR",
          `body.${f} must be a non-empty string of at most ${MAX_TEXT} characters`,
        );
    }
  }
  return { projectKey: key, batch };
}

// Field names are built only for an error message: `prefix` + `field` on the hot path would cost a
// string per field of every event.
function text(v: unknown, prefix: string, field: string, max: number, required: boolean): string | null {
  if (typeof v === "string" && v.length > 0 && v.length <= max) return v;
  if (v === undefined || v === null || v === "") {
    if (required) throw new FieldError(`${prefix}${field} is required`);
    return null;
  }
  if (typeof v !== "string") throw new FieldError(`${prefix}${field} must be a string`);
  throw new FieldError(`${prefix}${field} must be at most ${max} characters`);
}

function timestamp(v: unknown, prefix: string, now: number): number {
  const field = "timestamp";
  if (v === undefined || v === null) return now;
  let ms: number;
  if (typeof v === "number") ms = v;
  else if (typeof v === "string" && /^\d{4}-\d{2}-\d{2}(T|$)/.test(v)) ms = Date.parse(v);
  else throw new FieldError(`${prefix}${field} must be an ISO 8601 date-time`);
  if (!Number.isFinite(ms)) throw new FieldError(`${prefix}${field} must be an ISO 8601 date-time`);
  if (ms < EPOCH_2000 || ms > now + FUTURE_SLACK_MS)
    throw new FieldError(`${prefix}${field} is out of range (2000 to now + 1 day)`);
  return Math.floor(ms);
}

export interface EventDefaults {
  visitorId?: string | null;
  leadId?: string | null;
  /**
   * Batch (SDK) format: an event without visitorId and userId is an anonymous server event, and
   * the end user's User-Agent may be forwarded per event in `context.userAgent` (Segment's shape).
   */
  batch?: boolean;
  /** Internal server-side sources (webhooks in, connectors): url optional, leadId per event. */
  internal?: boolean;
}

/**
 * Validates one event; returns it or throws a message naming the field (`prefix` + field).
 * Unknown fields are ignored so older and newer snippets keep working.
 */
export function toIncoming(raw: unknown, prefix: string, d: EventDefaults, now: number): IncomingEvent {
  if (!isObj(raw)) throw new FieldError(`${prefix || "event"} must be an object`);
  const type = text(raw.type, prefix, "type", MAX_TEXT, true)!;
  const leadId =
    (d.internal ? text(raw.leadId, prefix, "leadId", MAX_TEXT, false) : null) ?? d.leadId ?? null;
  let visitorId = text(raw.visitorId, prefix, "visitorId", MAX_TEXT, false) ?? d.visitorId ?? null;
  if (visitorId === null && leadId !== null) visitorId = `lead:${leadId}`;
  if (visitorId === null) {
    if (!d.batch) throw new FieldError(`${prefix}visitorId is required`);
    visitorId = ANONYMOUS_VISITOR;
  }
  const url = text(raw.url, prefix, "url", MAX_URL, !d.internal) ?? "";
  if (url && !ABSOLUTE_URL.test(url)) throw new FieldError(`${prefix}url must be an absolute URL`);
  const referrer = text(raw.referrer, prefix, "referrer", MAX_URL, false);
  let data: Obj = {};
  let dataJson = "{}";
  if (raw.data !== undefined && raw.data !== null) {
    if (!isObj(raw.data)) throw new FieldError(`${prefix}data must be an object`);
    data = raw.data;
    dataJson = JSON.stringify(data);
    if (dataJson.length > MAX_DATA_BYTES / 4 && Buffer.byteLength(dataJson) > MAX_DATA_BYTES)
      throw new FieldError(`${prefix}data is larger than 32 KiB`);
  }
  const ts = timestamp(raw.timestamp, prefix, now);
  const isBot = d.batch && raw.context !== undefined ? forwardedBot(raw.context, prefix) : false;
  return { type, visitorId, leadId, url, referrer, data, dataJson, ts, isBot };
}

/** A batch event's `context.userAgent`: the end user's agent an SDK forwards (Segment's field). */
function forwardedBot(context: unknown, prefix: string): boolean {
  if (context === null) return false;
  if (!isObj(context)) throw new FieldError(`${prefix}context must be an object`);
  return isBotAgent(text(context.userAgent, prefix, "context.userAgent", MAX_URL, false));
}

/** Validates every event of a batch: valid ones in order, invalid ones as item errors. */
export function readBatch(
  events: unknown[],
  d: EventDefaults,
  now: number,
): { valid: IncomingEvent[]; errors: ItemError[] } {
  const valid: IncomingEvent[] = [];
  const errors: ItemError[] = [];
  for (let i = 0; i < events.length; i++) {
    try {
      valid.push(toIncoming(events[i], "", d, now));
    } catch (e) {
      if (!(e instanceof FieldError)) throw e;
      errors.push({
        index: i,
        code: "VALIDATION_ERROR",
        message: `events[${i}].${e.message}`.replace(/\.event /, " "),
      });
    }
  }
  return { valid, errors };
}
