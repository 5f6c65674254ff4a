import { type Static, type TSchema, Type } from "@sinclair/typebox";
import { NO_CONTROL_CHARS } from "../../platform/control-chars.js";
import { X_ERROR } from "../../platform/validation.js";

// ---- POST /api/events: these schemas are both the OpenAPI contract and the check (validate.ts) ----

export const MAX_BATCH_EVENTS = 1000;
/** A public key's batch is a browser's, which never sends more. */
export const MAX_PUBLIC_BATCH_EVENTS = 100;
export const MAX_DATA_BYTES = 32 * 1024;
export const MAX_TEXT = 200;
export const MAX_URL = 4096;

/** An optional field that may also be sent as null (what many JSON clients send for "none"). */
function Nullable<T extends TSchema>(schema: T) {
  const { type } = schema as unknown as { type: string | string[] };
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [...[type].flat(), "null"] });
}
const Text = (description?: string) => Type.String({ minLength: 1, maxLength: MAX_TEXT, description });
/** A visitor's or lead's id: named later in URLs (a journey, an erasure), so no control characters. */
const Id = (description?: string) =>
  Type.String({
    minLength: 1,
    maxLength: MAX_TEXT,
    pattern: NO_CONTROL_CHARS,
    [X_ERROR]: `must be 1–${MAX_TEXT} characters without control characters`,
    description,
  });
const Url = (description: string) =>
  Type.String({
    maxLength: MAX_URL,
    // Any absolute URL (http, https, app schemes of mobile SDKs); parsing happens only at session start.
    pattern: "^[a-zA-Z][a-zA-Z0-9+.-]*:\\S+$",
    [X_ERROR]: "must be an absolute URL",
    description,
  });
const ProjectKey = Type.String({
  minLength: 1,
  maxLength: MAX_TEXT,
  [X_ERROR]: "must be a non-empty string",
  description: "the public key svc_pk_… (web pages) or a secret API key svc_key_… (servers)",
});
// Unknown fields are ignored on ingest (docs/decisions/platform.md): older and newer snippets and SDKs keep working.
const EventFields = {
  type: Text("pageview, click, form_submit or a custom name"),
  url: Url("full URL of the event"),
  data: Type.Optional(
    Nullable(
      Type.Object(
        {},
        { additionalProperties: true, description: "custom properties, at most 32 KiB as JSON" },
      ),
    ),
  ),
  referrer: Type.Optional(Nullable(Type.String({ maxLength: MAX_URL }))),
  timestamp: Type.Optional(
    Type.Unsafe<string | number | null>({
      type: ["string", "number", "null"],
      [X_ERROR]: "must be an ISO 8601 date-time",
      description: "ISO 8601 (or epoch milliseconds) from 2000 to now + 1 day; defaults to receipt time",
    }),
  ),
};
export const SnippetEvent = Type.Object(
  { projectKey: ProjectKey, visitorId: Id(), ...EventFields },
  {
    description:
      "One event from a web page (the snippet). Counted as a visit unless the request's User-Agent is a crawler's or a headless browser's.",
  },
);
export const BatchEvent = Type.Object({
  visitorId: Type.Optional(Nullable(Id("defaults to the batch's visitorId"))),
  ...EventFields,
  context: Type.Optional(
    Nullable(
      Type.Object({
        userAgent: Type.Optional(
          Nullable(
            Type.String({
              maxLength: MAX_URL,
              description:
                "the end user's User-Agent, forwarded by an SDK; a crawler's flags the event as a bot",
            }),
          ),
        ),
      }),
    ),
  ),
});
const batchFields = {
  projectKey: ProjectKey,
  userId: Type.Optional(Id("lead id applied to every event; the lead is created when new")),
  visitorId: Type.Optional(Id("default visitorId for events without one")),
};
const batchDescription =
  "Server (SDK) events: never sessions or touchpoints, never judged by the request's User-Agent. Without visitorId and userId an event is anonymous. Invalid events are reported in errors; the valid ones are stored.";
export const BatchBody = Type.Object(
  {
    ...batchFields,
    events: Type.Array(BatchEvent, {
      minItems: 1,
      maxItems: MAX_BATCH_EVENTS,
      description: `at most ${MAX_BATCH_EVENTS} events; at most ${MAX_PUBLIC_BATCH_EVENTS} with the public key`,
    }),
  },
  { description: batchDescription },
);
/** A batch as checked before its events: each event is checked alone, so one bad event rejects only itself. */
export const BatchEnvelope = Type.Object({
  ...batchFields,
  events: Type.Array(Type.Unknown(), { minItems: 1, maxItems: MAX_BATCH_EVENTS }),
});
export const IngestBody = Type.Union([SnippetEvent, BatchBody]);
export type SnippetEventBody = Static<typeof SnippetEvent>;
export type BatchEventBody = Static<typeof BatchEvent>;
export type BatchEnvelopeBody = Static<typeof BatchEnvelope>;

/** Events other modules ingest (webhooks in, connectors): visitorId or leadId; url optional. */
export const ServerEvent = Type.Object({
  type: Text(),
  visitorId: Type.Optional(Id()),
  leadId: Type.Optional(Id()),
  url: Type.Optional(Url("page or resource the event concerns")),
  data: EventFields.data,
  timestamp: EventFields.timestamp,
});
export type ServerEventInput = Static<typeof ServerEvent>;

/** A batch's per-event refusal on the wire (`EventRefusal` in validate.ts). */
const EventRefusal = Type.Object({ index: Type.Integer(), code: Type.String(), message: Type.String() });
export const Received = Type.Object({
  received: Type.Integer(),
  errors: Type.Optional(Type.Array(EventRefusal)),
});

/** GET /api/events/recent */
export const RecentQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
});
export const RecentEvent = Type.Object({
  id: Type.String(),
  type: Type.String(),
  visitorId: Type.String(),
  leadId: Type.Union([Type.String(), Type.Null()]),
  url: Type.String(),
  referrer: Type.Union([Type.String(), Type.Null()]),
  data: Type.Object({}, { additionalProperties: true }),
  timestamp: Type.String({ description: "event time (ISO 8601)" }),
  receivedAt: Type.String(),
  sessionId: Type.String(),
  channel: Type.String(),
  source: Type.Union([Type.String(), Type.Null()]),
  isBot: Type.Boolean({ description: "stored but left out of analytics" }),
});

/** GET /api/events/status: whether the project has received anything yet (the dashboard's first run). */
export const EventsStatus = Type.Object({
  hasEvents: Type.Boolean({ description: "any event stored for the project, bots included" }),
});
