import { Type } from "@sinclair/typebox";

/** GET /api/events/recent (the ingest route's schemas stay in routes.ts beside its hand validation). */
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
