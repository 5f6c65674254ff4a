import { NO_CONTROL_CHARS } from "../../platform/control-chars.js";
import { X_ERROR } from "../../platform/validation.js";
import { Type } from "@sinclair/typebox";

/** Ids are named later in URLs (a journey, an erasure): no control characters. */
const Id = (description?: string) =>
  Type.String({
    minLength: 1,
    maxLength: 200,
    pattern: NO_CONTROL_CHARS,
    [X_ERROR]: "must be 1–200 characters without control characters",
    description,
  });
const VisitorId = Id();
const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const JourneyQuery = Type.Object({ visitorId: VisitorId });

/** Properties to set on the lead (Segment's identify traits, PostHog's `$set`): they overwrite. */
export const Traits = Type.Record(Type.String({ minLength: 1, maxLength: 100 }), Type.Unknown(), {
  maxProperties: 100,
  description:
    "properties set on the lead, overwriting ones of the same name (at most 100 keys; a lead's properties hold at most 32 KiB of JSON)",
});

export const Attribution = Type.Object({
  channel: Nullable(Type.String()),
  source: Nullable(Type.String()),
  landingPage: Nullable(Type.String()),
});

export const Journey = Type.Object({
  visitorId: Type.String(),
  leadId: Nullable(Type.String()),
  visitorIds: Type.Array(Type.String()),
  firstSeen: Type.String(),
  lastSeen: Type.String(),
  events: Type.Array(Type.Object({ type: Type.String(), url: Type.String(), timestamp: Type.String() })),
  attribution: Attribution,
});

/** When the person became known, for history brought from another tool (identity/dating.ts). */
const KnownAt = Type.String({
  minLength: 1,
  maxLength: 40,
  description:
    "when the person became known (ISO 8601 date-time, from 2000 to now + 1 day; default now): a new lead and link are dated then; an earlier time than the stored one moves the lead's creation and the link earlier (a page's public key dates only what its stitch creates)",
});

export const LinkBody = Type.Object(
  {
    visitorId: VisitorId,
    // as long as a batch userId, which creates leads under its id too
    leadId: Id(),
    source: Type.Optional(Type.String({ maxLength: 200 })),
    traits: Type.Optional(Traits),
    timestamp: Type.Optional(KnownAt),
  },
  { additionalProperties: false },
);

export const LinkResult = Type.Object({
  visitorId: Type.String(),
  leadId: Type.String(),
  source: Type.String(),
  linkedAt: Type.String(),
  linked: Type.Boolean(),
});

export const StitchBody = Type.Object({
  visitorId: VisitorId,
  email: Type.String({ minLength: 3, maxLength: 320 }),
  projectKey: Type.String({ minLength: 1, maxLength: 200 }),
  traits: Type.Optional(Traits),
  timestamp: Type.Optional(KnownAt),
});

export const StitchResult = Type.Union([
  Type.Object(
    {
      visitorId: Type.String(),
      leadId: Type.String(),
      email: Type.String(),
      created: Type.Boolean(),
      linked: Type.Boolean(),
    },
    { title: "ServerStitchResult", description: "with a secret project key (svc_key_…): the full result" },
  ),
  Type.Object(
    { visitorId: Type.String(), email: Type.String(), accepted: Type.Literal(true) },
    {
      title: "PageStitchResult",
      description:
        "with the public key (svc_pk_…, in every page): the same answer whether or not the email belongs to a lead",
    },
  ),
]);

export const LeadListQuery = Type.Object({
  q: Type.Optional(
    Type.String({
      maxLength: 320,
      description:
        "lead id, or part of the email. Filter by a property with `where[<name>]=<value>` (values compared as text; `true`, `5`; at most 10, all must match)",
    }),
  ),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 400, description: "nextCursor of the previous page" })),
  filter: Type.Optional(
    Type.String({
      maxLength: 4000,
      description:
        "the report filter (JSON array of conditions, as on /api/analytics/*): leads whose properties, cohorts and last 90 days meet it",
    }),
  ),
});

export const LeadListItem = Type.Object({
  id: Type.String(),
  /** null for a lead created by id (POST /api/identity, a batch userId) until a stitch gives one */
  email: Nullable(Type.String()),
  createdAt: Type.String(),
  firstTouch: Type.Object({ channel: Nullable(Type.String()), source: Nullable(Type.String()) }),
  visitors: Type.Integer(),
  /** the lead's visitors (any of them opens the lead's merged journey: GET /api/identity) */
  visitorIds: Type.Array(Type.String()),
  conversions: Type.Integer(),
  revenue: Type.Number(),
});

export const LeadList = Type.Object({
  items: Type.Array(LeadListItem),
  nextCursor: Nullable(Type.String()),
});

export const LeadParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

export const LeadProfile = Type.Object({
  id: Type.String(),
  email: Nullable(Type.String()),
  name: Nullable(Type.String()),
  source: Type.String(),
  properties: Type.Record(Type.String(), Type.Unknown()),
  /** the lead's first touch: the earliest first touch among its visitors */
  attribution: Attribution,
  firstSeen: Nullable(Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  visitors: Type.Array(
    Type.Object({
      visitorId: Type.String(),
      linkedAt: Nullable(Type.String()),
      source: Nullable(Type.String()),
    }),
  ),
  conversions: Type.Integer(),
  revenue: Type.Number(),
});
