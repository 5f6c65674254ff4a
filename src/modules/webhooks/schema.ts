import { type Static, Type } from "@sinclair/typebox";
import { SERVICE_EVENT_TYPES } from "../../platform/jobs/index.js";
import { jobKind } from "../../platform/jobs/index.js";

export const EventType = Type.Union(SERVICE_EVENT_TYPES.map((t) => Type.Literal(t)));
const Events = Type.Array(EventType, {
  minItems: 1,
  maxItems: SERVICE_EVENT_TYPES.length,
  uniqueItems: true,
});

export const Webhook = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  status: Type.Union([Type.Literal("active"), Type.Literal("disabled")]),
  disabledReason: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type WebhookT = Static<typeof Webhook>;
export const CreatedWebhook = Type.Intersect([Webhook, Type.Object({ secret: Type.String() })]);

export const CreateWebhookBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048 }),
    events: Events,
    secret: Type.Optional(
      Type.String({
        minLength: 16,
        maxLength: 256,
        description:
          "shared secret; generated (whsec_<base64>) when omitted. A whsec_ secret is signed with " +
          "its base64-decoded bytes, any other string (16–256 characters) with its UTF-8 bytes",
      }),
    ),
  },
  { additionalProperties: false },
);
export type CreateWebhook = Static<typeof CreateWebhookBody>;

export const PatchWebhookBody = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 100 }),
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    events: Type.Optional(Events),
    status: Type.Optional(Type.Union([Type.Literal("active"), Type.Literal("disabled")])),
  },
  { additionalProperties: false },
);
export type PatchWebhook = Static<typeof PatchWebhookBody>;

export const DeleteWebhookBody = Type.Object(
  { id: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);
export const Deleted = Type.Object({ id: Type.String(), deleted: Type.Boolean() });

export const Attempt = Type.Object({
  attempt: Type.Integer(),
  succeeded: Type.Boolean(),
  statusCode: Type.Union([Type.Integer(), Type.Null()]),
  durationMs: Type.Integer(),
  error: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
});
export const Delivery = Type.Object({
  id: Type.String(),
  eventId: Type.String(),
  eventType: Type.String(),
  status: Type.Union([Type.Literal("pending"), Type.Literal("succeeded"), Type.Literal("failed")]),
  attemptCount: Type.Integer(),
  lastError: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  attempts: Type.Array(Attempt),
});
export type DeliveryT = Static<typeof Delivery>;
export const DeliveryPage = Type.Object({
  data: Type.Array(Delivery),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});
export const DeliveriesQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
});
export const IdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
export const DeliveryParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 100 }),
  deliveryId: Type.String({ minLength: 1, maxLength: 100 }),
});

export const SOURCES = ["crm", "payments", "code_host"] as const;
export type Source = (typeof SOURCES)[number];
export const SourceParam = Type.Object({ source: Type.String({ minLength: 1, maxLength: 50 }) });
export const PutSourceBody = Type.Object(
  { secret: Type.String({ minLength: 8, maxLength: 500 }) },
  { additionalProperties: false },
);
export const SourceConfigured = Type.Object({ source: Type.String(), configured: Type.Boolean() });
export const IncomingQuery = Type.Object({ project: Type.Optional(Type.String({ maxLength: 100 })) });
export const IncomingResult = Type.Object({
  received: Type.Boolean(),
  duplicate: Type.Boolean(),
  processed: Type.Integer(),
});
export const SourceListItem = Type.Object({
  source: Type.String(),
  configured: Type.Boolean({ description: "whether a verification secret is set (it is never returned)" }),
  updatedAt: Type.Union([Type.String(), Type.Null()]),
  url: Type.String({
    description: "where the platform sends its webhooks (add ?project=<id> to pick a project)",
  }),
});

// ---- jobs (webhooks/jobs.ts defines their handlers) ----
/** One attempt of a delivery; a retry with a newer generation makes older queued jobs stop. */
export const DELIVER_JOB = jobKind(
  "webhook.deliver",
  Type.Object({ deliveryId: Type.String(), generation: Type.Integer({ minimum: 1 }) }),
);
