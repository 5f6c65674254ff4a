import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { NO_CONTROL_CHARS } from "../../../platform/control-chars.js";
import { X_ERROR } from "../../../platform/validation.js";
import { SdkId, SdkTime } from "../sdk-schema.js";

// ---- Segment's tracking API (/v1/…): these schemas are the OpenAPI contract and the checks (map.ts) ----

/** Segment's limits: 32 KB per message, 500 KB per batch request. */
export const MAX_MESSAGE_BYTES = 32 * 1024;
export const MAX_BATCH_BYTES = 500 * 1024;
/**
 * Messages per batch: as POST /api/events takes (Segment's limit is in bytes only, where ~9,000
 * small messages fit); a public key's batch is a browser's, which never sends more than 100.
 */
export const MAX_BATCH_MESSAGES = 1000;
export const MAX_PUBLIC_BATCH_MESSAGES = 100;
const MAX_TEXT = 200;
const MAX_URL = 4096;

/** An optional field that may also be sent as null (analytics.js sends `userId: null`). */
function Nullable<T extends TSchema>(schema: T) {
  const { type } = schema as unknown as { type: string | string[] };
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [...[type].flat(), "null"] });
}
const Text = (description: string, maxLength = MAX_TEXT) =>
  Type.Optional(Nullable(Type.String({ maxLength, description })));
/** Segment's ids are strings; numbers are accepted (HTTP API callers send them) and stored as text. */
const Id = (description: string) =>
  Type.Unsafe<string | number | null>({
    type: ["string", "number", "null"],
    maxLength: MAX_TEXT,
    // named later in URLs (a journey, an erasure): no control characters
    pattern: NO_CONTROL_CHARS,
    [X_ERROR]: `must be a string of at most ${MAX_TEXT} characters without control characters`,
    description,
  });
const Properties = (description: string) =>
  Type.Optional(Nullable(Type.Object({}, { additionalProperties: true, description })));

export const SegmentContext = Type.Object(
  {
    page: Type.Optional(
      Nullable(
        Type.Object({
          url: Text("the page's URL: the visit's URL (UTM tags and click ids decide its channel)", MAX_URL),
          referrer: Text("the referrer: the channel when there is no campaign", MAX_URL),
          title: Text("stored as the pageview's `title` unless properties have one", 1000),
          path: Text("", MAX_URL),
          search: Text("", MAX_URL),
        }),
      ),
    ),
    campaign: Type.Optional(
      Nullable(
        Type.Object({
          name: Text("utm_campaign", 500),
          source: Text("utm_source", 500),
          medium: Text("utm_medium", 500),
          term: Text("utm_term", 500),
          content: Text("utm_content", 500),
        }),
      ),
    ),
    ip: Text(
      "the end user's IP address (a server relaying for its users): the events' country is looked up from it instead of the request's; never stored",
      64,
    ),
    userAgent: Text(
      "the end user's User-Agent: a crawler's or headless browser's flags the event as a bot",
      MAX_URL,
    ),
    traits: Properties(
      "an identify's traits when it has no top-level `traits` (RudderStack's JS SDK sends them here); ignored on other calls",
    ),
  },
  { description: "Segment's context; the fields listed are read, others are ignored" },
);

const common = {
  messageId: Type.Optional(
    Nullable(
      Type.String({
        minLength: 1,
        maxLength: MAX_TEXT,
        description: "stored at most once per project within 24 hours (SDK retries count once)",
      }),
    ),
  ),
  userId: Type.Optional(Id("the lead's id (created when new); userId or anonymousId is required")),
  anonymousId: Type.Optional(Id("the visitor's id; userId or anonymousId is required")),
  timestamp: SdkTime("when the call happened (ISO 8601); used as given"),
  originalTimestamp: SdkTime("the device's time of the call: corrected by sentAt against the receipt time"),
  sentAt: SdkTime("the device's time of sending (also on the batch)"),
  context: Type.Optional(Nullable(SegmentContext)),
  integrations: Type.Optional(Type.Unknown({ description: "ignored (Lift has no destinations)" })),
};

export const TrackMessage = Type.Object(
  {
    ...common,
    event: Type.String({ minLength: 1, maxLength: MAX_TEXT, description: "the event's type in Lift" }),
    properties: Properties("the event's data; `revenue` (or `total`) and `currency` are its revenue"),
  },
  { description: "An event named `event`: a server event (no session) that converts like any other" },
);
const pageFields = {
  ...common,
  name: Text("the page's (screen's) name, stored in data"),
  category: Text("the page's category, stored in data"),
  properties: Properties("the pageview's data"),
};
export const PageMessage = Type.Object(pageFields, {
  description: "A pageview: a web visit with a session, channel, touchpoint and first touch",
});
export const ScreenMessage = Type.Object(pageFields, {
  description: "A screen view (event type `$screen`): a visit like a pageview",
});
export const IdentifyMessage = Type.Object(
  {
    ...common,
    traits: Properties(
      "lead properties: a secret key's overwrite, a public key's only fill properties the lead does not have",
    ),
  },
  { description: "Links anonymousId to the lead userId (created when new) and sets its properties" },
);
export const GroupMessage = Type.Object(
  {
    ...common,
    groupId: SdkId("the group (account, company)"),
    traits: Properties("stored on the lead under properties.groups.<groupId>"),
  },
  { description: "Stores the group's traits on the lead (other groups stay) and records the event" },
);
export const AliasMessage = Type.Object(
  {
    ...common,
    userId: SdkId("the lead the history joins"),
    previousId: SdkId("the visitor id (anonymousId) whose history joins the lead"),
  },
  { description: "Links the visitor previousId to the lead userId" },
);

export const MESSAGE_TYPES = ["track", "identify", "page", "screen", "group", "alias"] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];
export const MESSAGE_SCHEMAS = {
  track: TrackMessage,
  identify: IdentifyMessage,
  page: PageMessage,
  screen: ScreenMessage,
  group: GroupMessage,
  alias: AliasMessage,
} satisfies Record<MessageType, TSchema>;
export type TrackMessageT = Static<typeof TrackMessage>;
export type PageMessageT = Static<typeof PageMessage>;
export type IdentifyMessageT = Static<typeof IdentifyMessage>;
export type GroupMessageT = Static<typeof GroupMessage>;
export type AliasMessageT = Static<typeof AliasMessage>;
export type ContextT = Static<typeof SegmentContext>;
const CommonFields = Type.Object(common);
/** What every message has, whatever its type. */
export type CommonMessage = Static<typeof CommonFields>;

/** A message of a batch names its type. */
export const BatchMessage = Type.Union(
  MESSAGE_TYPES.map((type) =>
    Type.Composite([Type.Object({ type: Type.Literal(type) }), MESSAGE_SCHEMAS[type]], {
      description: MESSAGE_SCHEMAS[type].description,
    }),
  ),
);
const batchFields = {
  writeKey: Type.Optional(Type.String({ description: "the write key, when not sent by HTTP Basic" })),
  sentAt: SdkTime("the device's time of sending, for messages without their own"),
  context: Type.Optional(Nullable(SegmentContext)),
  integrations: Type.Optional(Type.Unknown()),
};
export const BatchBody = Type.Object(
  { batch: Type.Array(BatchMessage, { minItems: 1, maxItems: MAX_BATCH_MESSAGES }), ...batchFields },
  {
    description: `Messages of any type, at most ${MAX_MESSAGE_BYTES / 1024} KB each and ${MAX_BATCH_BYTES / 1024} KB together, at most ${MAX_BATCH_MESSAGES} (${MAX_PUBLIC_BATCH_MESSAGES} with the public key). All or none: one invalid message refuses the request (errors name each one).`,
  },
);
/** A batch as checked before its messages, which are checked one by one (errors name each). */
export const BatchEnvelope = Type.Object({
  batch: Type.Array(Type.Unknown(), { minItems: 1, maxItems: MAX_BATCH_MESSAGES }),
  ...batchFields,
});
export type BatchEnvelopeT = Static<typeof BatchEnvelope>;

export const Success = Type.Object(
  { success: Type.Literal(true) },
  { description: "Segment's answer: the messages are stored (or were already)" },
);

// ---- GET /v1/projects/:writeKey/settings: what analytics.js (analytics-next) loads first ----

export const SettingsParams = Type.Object({
  writeKey: Type.String({ maxLength: MAX_TEXT, description: "the project's public key svc_pk_…" }),
});
export const Settings = Type.Object(
  {
    integrations: Type.Object({
      "Segment.io": Type.Object({
        apiKey: Type.String({ description: "the write key analytics.js sends with each call" }),
        apiHost: Type.String({ description: "this server's host and /v1: where the calls go" }),
        protocol: Type.Union([Type.Literal("http"), Type.Literal("https")]),
        unbundledIntegrations: Type.Array(Type.String()),
        addBundledMetadata: Type.Boolean(),
        maybeBundledConfigIds: Type.Object({}),
      }),
    }),
    remotePlugins: Type.Array(Type.Unknown(), { description: "empty: nothing is loaded from a CDN" }),
    enabledMiddleware: Type.Object({}),
    middlewareSettings: Type.Object({}),
    legacyVideoPluginsEnabled: Type.Boolean(),
    metrics: Type.Object({ sampleRate: Type.Number({ description: "0: no metrics are sent anywhere" }) }),
  },
  { description: "analytics.js's source settings: Segment.io (this server) is the only destination" },
);
export type SettingsT = Static<typeof Settings>;
