import { type Static, Type } from "@sinclair/typebox";
import {
  MAX_BATCH_BYTES,
  MAX_BATCH_MESSAGES,
  MAX_MESSAGE_BYTES,
  MAX_PUBLIC_BATCH_MESSAGES,
} from "../segment/schema.js";
import { SdkId, SdkTime } from "../sdk-schema.js";

// ---- PostHog's capture API (/e, /batch, …): these schemas are the OpenAPI contract and the checks (map.ts) ----

const MAX_TEXT = 200;
const Props = (description: string) =>
  Type.Optional(Type.Unsafe<Record<string, unknown> | null>({ type: ["object", "null"], description }));

export const PostHogEvent = Type.Object(
  {
    event: Type.String({
      minLength: 1,
      maxLength: MAX_TEXT,
      description:
        "the event's name: `$pageview` is a pageview, `$identify`, `$create_alias`, `$groupidentify` and `$set` act on the lead, any other is stored under its name",
    }),
    distinct_id: Type.Optional(
      SdkId("the visitor, or once identified the lead (also accepted in properties)"),
    ),
    properties: Props(
      "the event's data; `$current_url`, `$referrer`, `$set`, `$set_once`, `$anon_distinct_id` and `token` (the key) are read",
    ),
    timestamp: SdkTime("when it happened; corrected by the request's sent_at against the receipt time"),
    offset: Type.Optional(
      Type.Number({ description: "ms before sending: the event's time when it has no timestamp" }),
    ),
    uuid: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: MAX_TEXT,
        description: "stored at most once per project within 24 hours (SDK retries count once)",
      }),
    ),
    $set: Props("person properties to set (as properties.$set)"),
    $set_once: Props("person properties to set when absent (as properties.$set_once)"),
    api_key: Type.Optional(Type.String({ description: "the project's key, when not on the request" })),
  },
  { description: "One PostHog event; other fields are ignored" },
);
export type PostHogEventT = Static<typeof PostHogEvent>;

export const CaptureBody = Type.Union(
  [
    Type.Object(
      {
        api_key: Type.Optional(
          Type.String({ description: "the project's public key svc_pk_…, or its secret key" }),
        ),
        batch: Type.Array(PostHogEvent, { minItems: 1, maxItems: MAX_BATCH_MESSAGES }),
        sent_at: SdkTime("the client's time of sending"),
        historical_migration: Type.Optional(Type.Boolean({ description: "ignored" })),
      },
      { description: "a batch (posthog-node, /batch/)" },
    ),
    Type.Array(PostHogEvent, {
      minItems: 1,
      maxItems: MAX_BATCH_MESSAGES,
      description: "events (posthog-js, /e/)",
    }),
    PostHogEvent,
  ],
  {
    description: `JSON, gzip (Content-Encoding, ?compression=gzip-js, or gzip bytes as text/plain), or ?compression=base64 with a form field data. At most ${MAX_MESSAGE_BYTES / 1024} KB an event and ${MAX_BATCH_BYTES / 1024} KB a request (decompressed), ${MAX_BATCH_MESSAGES} events (${MAX_PUBLIC_BATCH_MESSAGES} with the public key). All or none: one invalid event refuses the request (errors name each one).`,
  },
);

export const CaptureQuery = Type.Object(
  {
    compression: Type.Optional(
      Type.String({ description: "`gzip-js` or `gzip`: the body is gzip; `base64`: a form field data" }),
    ),
  },
  { additionalProperties: true },
);

export const Status = Type.Object(
  { status: Type.Literal(1) },
  { description: "PostHog's answer: the events are stored (or were already)" },
);

// ---- /array/<token>/config: the remote config posthog-js loads on init ----

export const ConfigParams = Type.Object({
  token: Type.String({ maxLength: MAX_TEXT, description: "the project's public key svc_pk_…" }),
});
export const RemoteConfig = Type.Object(
  {
    token: Type.String(),
    supportedCompression: Type.Array(Type.String(), { description: "gzip-js, then base64" }),
    hasFeatureFlags: Type.Boolean({ description: "true: posthog-js asks /flags on init" }),
    autocapture_opt_out: Type.Boolean(),
    capturePerformance: Type.Boolean(),
    autocaptureExceptions: Type.Boolean(),
    heatmaps: Type.Boolean(),
    sessionRecording: Type.Boolean(),
    surveys: Type.Boolean(),
    siteApps: Type.Array(Type.Unknown()),
    elementsChainAsString: Type.Boolean(),
  },
  { description: "posthog-js's remote config: events, autocapture and flags only, nothing else loaded" },
);
export type RemoteConfigT = Static<typeof RemoteConfig>;
