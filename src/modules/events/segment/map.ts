import type { ProjectKeyKind } from "../../../platform/auth/keys.js";
import { compileSchema, firstSchemaError } from "../../../platform/validation.js";
import { isBotAgent } from "../bots.js";
import { MAX_DATA_BYTES } from "../schema.js";
import type { Mapped } from "../sdk-ingest.js";
import type { IncomingEvent } from "../../event-store/service.js";
import { FieldError } from "../validate.js";
import {
  type AliasMessageT,
  type CommonMessage,
  type ContextT,
  type GroupMessageT,
  type IdentifyMessageT,
  MESSAGE_SCHEMAS,
  MESSAGE_TYPES,
  type MessageType,
  type PageMessageT,
  type TrackMessageT,
} from "./schema.js";

/** What a request brings besides its messages. */
export interface Envelope {
  /** the write key's kind (the principal's): a public key's traits only fill empty properties */
  keyKind: ProjectKeyKind;
  /** the receipt time (epoch ms): skew correction's reference and the default time */
  now: number;
  /** the batch's sentAt (epoch ms), for messages without their own */
  sentAt: number | null;
  /** the batch's context, under each message's own */
  context: ContextT | null;
  /** the request's User-Agent: judged only for a public key (a browser) without context.userAgent */
  requestAgent: string | undefined;
}

const FUTURE_SLACK_MS = 86_400_000;
const EPOCH_2000 = 946_684_800_000;
const checks = Object.fromEntries(MESSAGE_TYPES.map((t) => [t, compileSchema(MESSAGE_SCHEMAS[t])])) as Record<
  MessageType,
  ReturnType<typeof compileSchema>
>;

/** The type a batch message names, or FieldError. */
export function typeOf(raw: unknown): MessageType {
  const type = (raw as { type?: unknown } | null)?.type;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new FieldError(" must be an object");
  if (!MESSAGE_TYPES.includes(type as MessageType))
    throw new FieldError(`.type must be one of ${MESSAGE_TYPES.join(", ")}`);
  return type as MessageType;
}

/** One message of `type` as an event; throws FieldError naming the field (`.userId …`). */
export function toIncoming(raw: unknown, type: MessageType, env: Envelope): Mapped {
  const check = checks[type];
  if (!check(raw)) throw new FieldError(firstSchemaError(check, "").message);
  const m = raw as CommonMessage;
  const userId = idText(m.userId);
  const anonymousId = idText(m.anonymousId);
  if (userId === null && anonymousId === null && type !== "alias")
    throw new FieldError(" needs a userId or an anonymousId");
  const context = env.context ? { ...env.context, ...m.context } : (m.context ?? null);
  const agent = context?.userAgent ?? (env.keyKind === "public" ? env.requestAgent : undefined);
  const page = context?.page ?? null;
  let visitorId = anonymousId ?? `lead:${userId}`;
  let leadId = userId;
  let url = page?.url ?? "";
  let referrer = page?.referrer || null;
  let eventType: string;
  let data: Record<string, unknown>;
  let field = ".properties";
  switch (type) {
    case "page":
    case "screen": {
      const p = raw as PageMessageT;
      const props: Record<string, unknown> = p.properties ?? {};
      eventType = type === "page" ? "pageview" : "$screen";
      url = withCampaign(page?.url ?? text(props.url) ?? "", context?.campaign);
      referrer ??= text(props.referrer) || null;
      data = withFields(props, { name: p.name, category: p.category, title: page?.title });
      break;
    }
    case "track":
      eventType = (raw as TrackMessageT).event;
      data = revenueOf((raw as TrackMessageT).properties ?? {});
      break;
    case "identify": {
      // RudderStack's JS SDK puts an identify's traits in context.traits; Segment's at the top.
      const traits = (raw as IdentifyMessageT).traits ?? context?.traits ?? undefined;
      eventType = "$identify";
      // PostHog's person operations, which the identity step applies to the lead (or the visitor).
      data = traits && Object.keys(traits).length > 0 ? { [setOp(env)]: traits } : {};
      field = ".traits";
      break;
    }
    case "group": {
      const g = raw as GroupMessageT;
      eventType = "$group";
      // Applied to the lead by the pipeline's `segment` step (processor.ts).
      data = { groupId: String(g.groupId), [`$group${setOp(env)}`]: g.traits ?? {} };
      field = ".traits";
      break;
    }
    case "alias": {
      const a = raw as AliasMessageT;
      // The visitor previousId joins the lead: the identity step links an event's visitor to its lead.
      visitorId = String(a.previousId);
      leadId = String(a.userId);
      eventType = "$alias";
      data = { previousId: visitorId };
      break;
    }
  }
  const web = type === "page" || type === "screen";
  // The same shape as validate.ts's events (one hidden class for the writer's loop).
  const event: IncomingEvent = {
    type: eventType,
    visitorId,
    leadId,
    url,
    referrer,
    data,
    dataJson: dataJsonOf(data, field),
    ts: timeOf(m, env),
    isBot: isBotAgent(agent ?? undefined),
    userAgent: web ? (agent ?? null) : null,
  };
  const address = context?.ip;
  return { event, web, messageId: m.messageId ?? null, ...(address ? { address } : {}) };
}

/** `$set` from a secret key (overwrites); `$set_once` from a public one (only fills what is empty). */
const setOp = (env: Envelope) => (env.keyKind === "secret" ? "$set" : "$set_once");

const idText = (v: string | number | null | undefined): string | null =>
  v === null || v === undefined || v === "" ? null : String(v);
const text = (v: unknown): string | undefined => (typeof v === "string" && v.length <= 4096 ? v : undefined);

/** `data` with the message's own fields added where the properties do not have them. */
function withFields(
  props: Record<string, unknown>,
  fields: Record<string, string | null | undefined>,
): Record<string, unknown> {
  let out = props;
  for (const [k, v] of Object.entries(fields)) {
    if (v === null || v === undefined || v === "" || k in props) continue;
    if (out === props) out = { ...props };
    out[k] = v;
  }
  return out;
}

/** `data` as stored (serialized once), at most 32 KiB as for /api/events. */
function dataJsonOf(data: Record<string, unknown>, field: string): string {
  const json = JSON.stringify(data);
  if (json.length > MAX_DATA_BYTES / 4 && Buffer.byteLength(json) > MAX_DATA_BYTES)
    throw new FieldError(`${field} is larger than ${MAX_DATA_BYTES / 1024} KiB`);
  return json;
}

/**
 * A track's properties as its data: revenue is `revenue`, or `total` (Segment's e-commerce spec),
 * as a number; currency is upper-cased (ISO 4217, as the payment connectors store it).
 */
function revenueOf(props: Record<string, unknown>): Record<string, unknown> {
  const revenue = amount(props.revenue) ?? amount(props.total);
  const currency = typeof props.currency === "string" ? props.currency.toUpperCase() : undefined;
  const sameRevenue = revenue === undefined || revenue === props.revenue;
  const sameCurrency = currency === undefined || currency === props.currency;
  if (sameRevenue && sameCurrency) return props;
  return {
    ...props,
    ...(revenue !== undefined ? { revenue } : {}),
    ...(currency !== undefined ? { currency } : {}),
  };
}

const amount = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isFinite(v)
    ? v
    : typeof v === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(v)
      ? Number(v)
      : undefined;

const CAMPAIGN_TAGS = [
  ["name", "utm_campaign"],
  ["source", "utm_source"],
  ["medium", "utm_medium"],
  ["term", "utm_term"],
  ["content", "utm_content"],
] as const;

/**
 * The visit's URL with context.campaign as UTM tags, when the URL has none (a server-side page
 * call): the channel is derived from the URL. analytics.js reads campaign from the URL itself, so
 * there the URL already has them.
 */
function withCampaign(url: string, campaign: ContextT["campaign"] | undefined): string {
  if (!campaign || url.includes("utm_")) return url;
  const tags = CAMPAIGN_TAGS.filter(([k]) => campaign[k]);
  if (tags.length === 0) return url;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  for (const [k, tag] of tags) u.searchParams.set(tag, campaign[k]!);
  const out = u.toString();
  return out.length <= 4096 ? out : url;
}

const ISO = /^\d{4}-\d{2}-\d{2}(T|$)/;

/** A time field as epoch ms (ISO 8601, or epoch ms as a number); null when absent. */
export function parseTime(v: unknown, field: string): number | null {
  if (v === undefined || v === null) return null;
  const ms = typeof v === "number" ? v : typeof v === "string" && ISO.test(v) ? Date.parse(v) : Number.NaN;
  if (!Number.isFinite(ms)) throw new FieldError(`.${field} must be an ISO 8601 date-time`);
  return ms;
}

/**
 * The event's time: `timestamp` as given; else Segment's skew correction, the device's time of the
 * call moved by how far its clock was off when it sent (receivedAt − (sentAt − originalTimestamp));
 * else the receipt time. Between 2000 and a day after receipt, as for /api/events.
 */
function timeOf(m: CommonMessage, env: Envelope): number {
  let ms = parseTime(m.timestamp, "timestamp");
  let field = "timestamp";
  if (ms === null) {
    const original = parseTime(m.originalTimestamp, "originalTimestamp");
    field = "originalTimestamp";
    const sent = parseTime(m.sentAt, "sentAt") ?? env.sentAt;
    ms = original === null ? env.now : sent === null ? original : env.now - (sent - original);
  }
  if (ms < EPOCH_2000 || ms > env.now + FUTURE_SLACK_MS)
    throw new FieldError(`.${field} is out of range (2000 to now + 1 day)`);
  return Math.floor(ms);
}
