import type { ProjectKeyKind } from "../../../platform/auth/keys.js";
import { compileSchema, firstSchemaError } from "../../../platform/validation.js";
import { isBotAgent } from "../bots.js";
import { MAX_DATA_BYTES } from "../schema.js";
import type { Mapped } from "../sdk-ingest.js";
import { parseTime } from "../segment/map.js";
import type { IncomingEvent } from "../../event-store/service.js";
import { ANONYMOUS_VISITOR, FieldError } from "../validate.js";
import type { GroupSet } from "./groups-store.js";
import { PostHogEvent, type PostHogEventT } from "./schema.js";

/** What a request brings besides its events. */
export interface Envelope {
  /** the key's kind (the principal's): a public key's `$set` only fills empty properties */
  keyKind: ProjectKeyKind;
  /** the receipt time (epoch ms): skew correction's reference and the default time */
  now: number;
  /** the client's time of sending (epoch ms): `sent_at` on the body, or in posthog-js's query (`sent_at`, `_`) */
  sentAt: number | null;
  /** the request's User-Agent: judged only for a public key (a browser) without `$raw_user_agent` */
  requestAgent: string | undefined;
}

const FUTURE_SLACK_MS = 86_400_000;
const EPOCH_2000 = 946_684_800_000;
const MAX_URL = 4096;
const MAX_ID = 200;
const check = compileSchema(PostHogEvent);

/**
 * Properties that are not the event's data: the key, the ids, what the event's columns hold (its
 * URL and referrer, the visit's user agent) and the SDK's metadata (as Segment's `context.library`).
 */
const NOT_DATA = new Set([
  "token",
  "api_key",
  "distinct_id",
  "$raw_user_agent",
  "$current_url",
  "$referrer",
  "$lib",
  "$lib_version",
  "$geoip_disable",
  // The end user's address (a server relaying): its country is looked up, the address never kept.
  "$ip",
]);

type Props = Record<string, unknown>;
const isObject = (v: unknown): v is Props => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown, max = MAX_URL): string | undefined =>
  typeof v === "string" && v.length <= max ? v : undefined;
/** An id PostHog may send as a number; null when absent, FieldError when unusable. */
function idOf(v: unknown, field: string): string | null {
  if (v === undefined || v === null || v === "") return null;
  const s = typeof v === "number" && Number.isFinite(v) ? String(v) : typeof v === "string" ? v : null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (s === null || s.length > MAX_ID || /[\u0000-\u001f\u007f]/.test(s))
    throw new FieldError(
      `.${field} must be a string of at most ${MAX_ID} characters without control characters`,
    );
  return s;
}

/**
 * One PostHog event as a Lift event; throws FieldError naming the field (`.distinct_id …`).
 * `distinct_id` is the visitor until identified: `$identify` links `$anon_distinct_id` to it as a
 * lead, `$create_alias` links `alias` to it, and an event marked `$is_identified` (posthog-js,
 * after identify) is the lead's, on the browser's `$device_id`.
 */
export function toIncoming(raw: unknown, env: Envelope): Mapped {
  if (!isObject(raw)) throw new FieldError(" must be an object");
  // `/engage` and old clients send person updates without an event name.
  const m = (
    raw.event === undefined && (isObject(raw.$set) || isObject(raw.$set_once))
      ? { ...raw, event: "$set" }
      : raw
  ) as PostHogEventT;
  if (!check(m)) throw new FieldError(firstSchemaError(check, "").message);
  const props: Props = m.properties ?? {};
  // The event's own distinct_id passed the schema; one from elsewhere is checked here.
  const distinctId =
    m.distinct_id !== undefined
      ? String(m.distinct_id)
      : idOf(props.distinct_id ?? (raw as Props).$distinct_id, "distinct_id");
  if (distinctId === null) throw new FieldError(".distinct_id is required");
  const agent = text(props.$raw_user_agent) ?? (env.keyKind === "public" ? env.requestAgent : undefined);
  let visitorId = distinctId;
  let leadId: string | null = null;
  let type = m.event;
  let web = false;
  // The properties are the data, without what Lift stores in columns or the SDK's own metadata.
  const data: Props = {};
  for (const k in props) if (!NOT_DATA.has(k)) data[k] = props[k];
  if (isObject(m.$set) && !isObject(data.$set)) data.$set = m.$set;
  if (isObject(m.$set_once) && !isObject(data.$set_once)) data.$set_once = m.$set_once;
  // After identify, posthog-js marks its events: they are the lead's, and the browser's device id
  // stays the visitor (its session goes on).
  if (props.$is_identified === true) {
    leadId = distinctId;
    visitorId = idOf(props.$device_id, "properties.$device_id") ?? distinctId;
  }
  switch (m.event) {
    case "$pageview":
    case "$screen":
      // A web visit as Segment's page: the URL's UTM tags and click ids, else the referrer, decide its channel.
      type = m.event === "$pageview" ? "pageview" : "$screen";
      web = true;
      break;
    case "$identify":
      leadId = distinctId;
      visitorId = idOf(props.$anon_distinct_id, "properties.$anon_distinct_id") ?? visitorId;
      break;
    case "$create_alias": {
      const alias = idOf(props.alias, "properties.alias");
      if (alias === null) throw new FieldError(".properties.alias is required");
      visitorId = alias;
      leadId = distinctId;
      break;
    }
    case "$groupidentify": {
      const key = idOf(props.$group_key, "properties.$group_key");
      if (key === null) throw new FieldError(".properties.$group_key is required");
      // posthog-node names a group without a person `$<type>_<key>`: an event, no visitor.
      if (distinctId === `$${String(props.$group_type)}_${key}`) {
        visitorId = ANONYMOUS_VISITOR;
        leadId = null;
        break;
      }
      // Lift keeps a group's traits on its lead (identity/groups.ts): the person the server named,
      // or a page's identified user. A page's traits only fill what the group lacks.
      if (env.keyKind !== "secret" && props.$is_identified !== true) break;
      type = "$group";
      leadId = distinctId;
      data.groupId = key;
      data[env.keyKind === "secret" ? "$group$set" : "$group$set_once"] = isObject(props.$group_set)
        ? props.$group_set
        : {};
      break;
    }
  }
  const referrer = text(props.$referrer);
  const json = JSON.stringify(data);
  if (json.length > MAX_DATA_BYTES / 4 && Buffer.byteLength(json) > MAX_DATA_BYTES)
    throw new FieldError(`.properties is larger than ${MAX_DATA_BYTES / 1024} KiB`);
  const event: IncomingEvent = {
    type,
    visitorId,
    leadId,
    url: text(props.$current_url) ?? "",
    referrer: referrer && referrer !== "$direct" ? referrer : null,
    data,
    dataJson: json,
    ts: timeOf(m, env),
    isBot: isBotAgent(agent),
    userAgent: web ? (agent ?? null) : null,
  };
  const address = text(props.$ip, 64);
  return { event, web, messageId: m.uuid ?? null, ...(address ? { address } : {}) };
}

/**
 * The event's time: `timestamp` moved by how far the client's clock was off when it sent
 * (receipt − sent_at), as PostHog does; else `offset` ms before receipt; else the receipt time.
 * Between 2000 and a day after receipt, as for /api/events.
 */
function timeOf(m: PostHogEventT, env: Envelope): number {
  const at = parseTime(m.timestamp, "timestamp");
  const ms =
    at === null
      ? env.now - (typeof m.offset === "number" ? m.offset : 0)
      : env.sentAt === null
        ? at
        : env.now - (env.sentAt - at);
  if (ms < EPOCH_2000 || ms > env.now + FUTURE_SLACK_MS)
    throw new FieldError(`.${at === null ? "offset" : "timestamp"} is out of range (2000 to now + 1 day)`);
  return Math.floor(ms);
}

/**
 * The traits of each `$groupidentify` without a person among a request's (already accepted) events,
 * in order: posthog-node's `groupIdentify` sends the distinct id `$<type>_<key>` (groups-store.ts).
 */
export function standaloneGroups(events: unknown[]): GroupSet[] {
  const out: GroupSet[] = [];
  for (const e of events) {
    if (!isObject(e) || e.event !== "$groupidentify") continue;
    const props = isObject(e.properties) ? e.properties : {};
    if (typeof props.$group_type !== "string") continue;
    const type = props.$group_type;
    const key = idOf(props.$group_key, "properties.$group_key");
    const distinct = e.distinct_id ?? props.distinct_id;
    if (key === null || String(distinct) !== `$${type}_${key}` || !isObject(props.$group_set)) continue;
    out.push({ type, key, set: props.$group_set });
  }
  return out;
}
