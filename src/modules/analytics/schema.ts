import { type Static, Type } from "@sinclair/typebox";
import { ATTRIBUTION_MODELS } from "./models.js";

export const SummaryQuery = Type.Object({
  period: Type.Optional(
    Type.Union([Type.Literal("7d"), Type.Literal("30d"), Type.Literal("90d"), Type.Literal("custom")]),
  ),
  from: Type.Optional(Type.String({ maxLength: 40 })),
  to: Type.Optional(Type.String({ maxLength: 40 })),
});
export type SummaryQueryT = Static<typeof SummaryQuery>;

export const AnalyticsSummary = Type.Object({
  visitors: Type.Number(),
  leads: Type.Number(),
  conversions: Type.Number(),
  conversionRate: Type.Number(),
  topChannels: Type.Array(
    Type.Object({ channel: Type.String(), visitors: Type.Number(), conversions: Type.Number() }),
  ),
  period: Type.Object({ from: Type.String(), to: Type.String() }),
});

export const AttributionQuery = Type.Object({
  model: Type.Optional(Type.Union(ATTRIBUTION_MODELS.map((m) => Type.Literal(m)))),
  period: Type.Optional(Type.Union([Type.Literal("7d"), Type.Literal("30d"), Type.Literal("90d")])),
});

export const AttributionSummary = Type.Object({
  model: Type.String(),
  channels: Type.Array(
    Type.Object({ channel: Type.String(), creditedConversions: Type.Number(), revenue: Type.Number() }),
  ),
});

export const TimeseriesQuery = Type.Object({
  ...SummaryQuery.properties,
  interval: Type.Optional(Type.Union([Type.Literal("day"), Type.Literal("week")], { default: "day" })),
});
export type TimeseriesQueryT = Static<typeof TimeseriesQuery>;

export const TimeseriesPoint = Type.Object({
  date: Type.String({ description: "first day of the bucket inside the period (YYYY-MM-DD)" }),
  visitors: Type.Number({ description: "distinct visitors in the bucket (bots excluded)" }),
  leads: Type.Number(),
  conversions: Type.Number(),
  revenue: Type.Number(),
});
export const Timeseries = Type.Object({
  interval: Type.Union([Type.Literal("day"), Type.Literal("week")]),
  period: Type.Object({ from: Type.String(), to: Type.String() }),
  points: Type.Array(TimeseriesPoint),
});
