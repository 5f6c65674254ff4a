import { Type } from "@sinclair/typebox";

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const VisitorId = Type.String({ minLength: 1, maxLength: 200 });
export const LeadParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

const Count = Type.Integer({ minimum: 0 });

/** An erasure as recorded: who asked, when, and how much went; nothing about the person. */
export const Erasure = Type.Object({
  id: Type.String(),
  subject: Type.Union([Type.Literal("lead"), Type.Literal("visitor")]),
  erasedAt: Type.String({ format: "date-time" }),
  erasedBy: Type.Object({
    kind: Type.Union([Type.Literal("apiKey"), Type.Literal("user")]),
    id: Type.String({ description: "the API key's id or the user's id" }),
  }),
  removed: Type.Object({
    events: Count,
    visitors: Count,
    sessions: Count,
    conversions: Count,
    exposures: Count,
    notifications: Type.Integer({
      minimum: 0,
      description: "lead.created / lead.updated service events about the lead",
    }),
    webhookDeliveries: Type.Integer({
      minimum: 0,
      description: "webhook deliveries (and attempts) of those",
    }),
  }),
  repeated: Type.Boolean({
    description: "true when the subject had already been erased: this is that erasure's record",
  }),
});

export const EraseVisitorQuery = Type.Object({ visitorId: VisitorId });

export const ErasureListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  cursor: Type.Optional(Type.String({ maxLength: 400, description: "nextCursor of the previous page" })),
});

export const ErasureList = Type.Object({
  items: Type.Array(Erasure),
  nextCursor: Nullable(Type.String()),
});
