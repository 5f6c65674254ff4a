import { type Static, Type } from "@sinclair/typebox";
import { BREAKDOWN_DIMENSIONS, FUNNEL_BREAKDOWNS } from "./ingest/dimensions.js";
import { VisitorsEstimate } from "./reports/estimate-schema.js";
import { ATTRIBUTION_MODELS } from "./ingest/models.js";

// ---------------------------------------------------------------- filters

export const FILTER_OPS = [
  "is",
  "is_not",
  "contains",
  "not_contains",
  "matches",
  "set",
  "not_set",
  "gt",
  "lt",
] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

export const FilterCondition = Type.Object(
  {
    key: Type.String({
      minLength: 1,
      maxLength: 106,
      pattern:
        '^(channel|source|campaign|landing_page|referrer_domain|device|browser|os|utm_(source|medium|campaign|term|content)|country|page|page_no_query|event|cohort|(event|lead)\\.[^"\\\\]{1,100})$',
      "x-error":
        "must be channel, source, campaign, landing_page, referrer_domain, device, browser, os, utm_source, utm_medium, utm_campaign, utm_term, utm_content, country, page, page_no_query, event, cohort, event.<property> or lead.<property>",
      description:
        "what the condition looks at, by scope — session: a visit's values (channel, source, campaign, landing_page, referrer_domain, device, browser, os; utm_source, utm_medium, utm_term, utm_content = its landing URL's tags, decoded and trimmed, utm_campaign = campaign; in a funnel, the session people entered in); event: the event (event = its type, page = its URL, page_no_query = its URL without query string or fragment, as the web view's pages, country = data.$country, event.<property> = its data; on the overview, everyone who sent one, servers' events included); person: lead.<property>, cohort (a cohort id). The export takes no landing URL's tag (400)",
    }),
    op: Type.Union(
      FILTER_OPS.map((o) => Type.Literal(o)),
      {
        description:
          'is / is_not (any of the values; "(none)" = no value), contains / not_contains (text, case-insensitive), matches (`*` wildcard, case-insensitive), set / not_set (no value), gt / lt (numbers; properties only)',
      },
    ),
    value: Type.Optional(
      Type.Union([
        Type.String({ maxLength: 500 }),
        Type.Number(),
        Type.Boolean(),
        Type.Array(Type.String({ maxLength: 500 }), { minItems: 1, maxItems: 20 }),
      ]),
    ),
  },
  { additionalProperties: false },
);
export type FilterConditionT = Static<typeof FilterCondition>;

export const Filter = Type.Array(FilterCondition, {
  maxItems: 10,
  description: "conditions that must all hold (at most 10)",
});
export type FilterT = Static<typeof Filter>;

/** The filter as a query parameter: the same conditions as compact JSON. */
export const FilterParam = Type.Optional(
  Type.String({
    maxLength: 4000,
    description:
      'The report filter as JSON: an array of at most 10 conditions `{key, op, value?}` that must all hold (the `Filter` schema; body field `filter` of POST reports). Example: `[{"key":"channel","op":"is","value":"organic_search"},{"key":"page","op":"matches","value":"*/pricing*"}]`',
  }),
);

/** Which conversions a view counts: one conversion goal, or any (docs: "One conversion model"). */
export const GoalParam = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: 100,
    description:
      'the id of the conversion goal whose events count as conversions, or "any" (the default): an event matching any conversion goal, or a `$revenue` event',
  }),
);

/** The goal a view counted, as its answer names it. */
export const GoalAnswer = Type.Union([Type.Object({ id: Type.String(), name: Type.String() }), Type.Null()], {
  description: "the conversion goal counted; null: any conversion goal",
});

/**
 * A report's period, spread into its query or body: a preset ending today, or `custom` with `from`
 * and `to` (ISO dates, both inclusive; reports/period.ts reads them).
 */
export const periodFields = (description?: string) => ({
  period: Type.Optional(
    Type.Union(
      [Type.Literal("7d"), Type.Literal("30d"), Type.Literal("90d"), Type.Literal("custom")],
      description ? { description } : {},
    ),
  ),
  from: Type.Optional(Type.String({ maxLength: 40 })),
  to: Type.Optional(Type.String({ maxLength: 40 })),
});

export const SummaryQuery = Type.Object({
  ...periodFields(),
  filter: FilterParam,
  goal: GoalParam,
});
export type SummaryQueryT = Static<typeof SummaryQuery>;

const CONVERTED_VISITORS =
  "the period's visitors whose person converted in the period (a counted conversion of the goal; refunds are not); people who converted without a visit in the period are conversions, never converted visitors";

export const AnalyticsSummary = Type.Object({
  goal: GoalAnswer,
  visitors: Type.Number({
    description:
      "distinct visitors in the period (bots excluded): a visitor seen on several days counts once; the time series' `totals.visitors` is the same number",
  }),
  visitorsEstimate: VisitorsEstimate,
  leads: Type.Number({ description: "leads created in the period" }),
  conversions: Type.Number({
    description:
      "conversion events in the period: a visitor with a form submit and a purchase counts twice (refunds are not conversions)",
  }),
  convertedVisitors: Type.Number({ description: CONVERTED_VISITORS }),
  conversionRate: Type.Number({
    description:
      "convertedVisitors ÷ visitors: the share of the period's visitors who converted (fraction, at most 1; 0 without visitors)",
  }),
  conversionsPerVisitor: Type.Number({
    description: "per event: conversions ÷ visitors (can exceed 1; 0 without visitors)",
  }),
  revenue: Type.Number({
    description:
      "revenue of the period's conversions (`data.revenue`), net of refunds, in `revenueCurrency` when that is set",
  }),
  revenueCurrency: Type.Union([Type.String(), Type.Null()], {
    description:
      "the ISO 4217 code of the revenue when every revenue event that names a currency (`data.currency`) names this one; null when none names one or when they are mixed (see revenueCurrencies)",
  }),
  revenueCurrencies: Type.Array(Type.String(), {
    description:
      "every currency the period's revenue events named, sorted; more than one means mixed currencies",
  }),
  topChannels: Type.Array(
    Type.Object({
      channel: Type.String(),
      visitors: Type.Number(),
      visitorsEstimate: VisitorsEstimate,
      conversions: Type.Number({ description: "conversion events credited to the channel (first touch)" }),
      revenue: Type.Number({
        description:
          "revenue of those conversions (net of refunds), in the summary's currency: the same first-touch basis",
      }),
      firstTouchVisitors: Type.Number({
        description: "the period's visitors whose person's first touch was this channel",
      }),
      convertedVisitors: Type.Number({
        description: "those of `firstTouchVisitors` who converted in the period",
      }),
      conversionRate: Type.Number({
        description:
          "convertedVisitors ÷ firstTouchVisitors: both sides on the first-touch basis (`visitors` is the traffic the channel brought, any session)",
      }),
    }),
    { description: "at most 10, by visitors, then conversions" },
  ),
  period: Type.Object({ from: Type.String(), to: Type.String() }),
});

/** What attribution's rows are keyed by: the touch session's channel, source, utm_medium or campaign. */
export const ATTRIBUTION_BYS = ["channel", "source", "medium", "campaign"] as const;
export type AttributionBy = (typeof ATTRIBUTION_BYS)[number];

export const AttributionQuery = Type.Object({
  model: Type.Optional(Type.Union(ATTRIBUTION_MODELS.map((m) => Type.Literal(m)))),
  period: Type.Optional(Type.Union([Type.Literal("7d"), Type.Literal("30d"), Type.Literal("90d")])),
  by: Type.Optional(
    Type.Union(
      ATTRIBUTION_BYS.map((b) => Type.Literal(b)),
      {
        description:
          "what `rows` are keyed by (default channel): the touch's session's channel, source, utm_medium (from its landing URL) or campaign",
      },
    ),
  ),
  filter: FilterParam,
  goal: GoalParam,
});

export const AttributionSummary = Type.Object({
  goal: GoalAnswer,
  model: Type.String(),
  by: Type.Union(
    ATTRIBUTION_BYS.map((b) => Type.Literal(b)),
    { description: "what `rows` are keyed by" },
  ),
  channels: Type.Array(
    Type.Object({ channel: Type.String(), creditedConversions: Type.Number(), revenue: Type.Number() }),
  ),
  rows: Type.Array(
    Type.Object({
      value: Type.String({ description: "the touch's value; `(none)` when its session had none" }),
      creditedConversions: Type.Number(),
      revenue: Type.Number(),
    }),
    { description: "credit per value of `by` (for channel, the channels)" },
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
  visitorsEstimate: VisitorsEstimate,
  leads: Type.Number(),
  conversions: Type.Number(),
  revenue: Type.Number(),
});
export const Timeseries = Type.Object({
  goal: GoalAnswer,
  interval: Type.Union([Type.Literal("day"), Type.Literal("week")]),
  period: Type.Object({ from: Type.String(), to: Type.String() }),
  points: Type.Array(TimeseriesPoint),
  totals: Type.Object(
    {
      visitors: Type.Number({
        description:
          "distinct visitors over the whole period: the summary's `visitors`, not the sum of the points (a visitor seen on two days is one visitor)",
      }),
      visitorsEstimate: VisitorsEstimate,
      convertedVisitors: Type.Number({ description: CONVERTED_VISITORS }),
      leads: Type.Number(),
      conversions: Type.Number(),
      revenue: Type.Number(),
    },
    { description: "the period as a whole" },
  ),
});

/** The per-goal table: each conversion goal's rate over the same visitors (as Plausible's goal list). */
export const GoalsQuery = Type.Object({
  period: SummaryQuery.properties.period,
  from: SummaryQuery.properties.from,
  to: SummaryQuery.properties.to,
  filter: FilterParam,
});
export const GoalsTable = Type.Object({
  visitors: Type.Number({
    description: "the period's visitors (the summary's): every goal's rate is over them",
  }),
  visitorsEstimate: VisitorsEstimate,
  goals: Type.Array(
    Type.Object({
      goalId: Type.String(),
      name: Type.String(),
      conversions: Type.Number({ description: "events matching the goal in the period" }),
      convertedVisitors: Type.Number({
        description: "the period's visitors whose person matched the goal in it",
      }),
      conversionRate: Type.Number({ description: "convertedVisitors ÷ visitors" }),
      revenue: Type.Number({ description: "revenue of the goal's events (`data.revenue`)" }),
    }),
    { description: "every conversion goal of the project, most converted visitors first" },
  ),
  period: Type.Object({ from: Type.String(), to: Type.String() }),
});

export const BreakdownQuery = Type.Object({
  by: Type.Union(
    BREAKDOWN_DIMENSIONS.map((d) => Type.Literal(d)),
    {
      description:
        "channel (the summary's channels), source, campaign (utm_campaign), landing_page, referrer_domain, device, browser, os (from the User-Agent), event_type",
    },
  ),
  ...SummaryQuery.properties,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
});
export type BreakdownQueryT = Static<typeof BreakdownQuery>;

export const Breakdown = Type.Object({
  goal: GoalAnswer,
  by: Type.String(),
  period: Type.Object({ from: Type.String(), to: Type.String() }),
  rows: Type.Array(
    Type.Object({
      key: Type.String({ description: '"(none)" when the value is missing (a direct visit has no source)' }),
      visitors: Type.Number({
        description: "distinct visitors whose sessions had this value (bots excluded)",
      }),
      visitorsEstimate: VisitorsEstimate,
      conversions: Type.Number({ description: "conversions of people whose first touch had this value" }),
      firstTouchVisitors: Type.Number({
        description:
          "the period's visitors whose person's first touch had this value (for event_type: the row's visitors)",
      }),
      convertedVisitors: Type.Number({
        description: "those of `firstTouchVisitors` who converted in the period",
      }),
      conversionRate: Type.Number({
        description:
          "convertedVisitors ÷ firstTouchVisitors: both sides on the first-touch basis (for event_type: the row's visitors who converted ÷ the row's visitors)",
      }),
      revenue: Type.Number(),
    }),
    { description: "sorted by visitors, then conversions; at most `limit`" },
  ),
});

export const FunnelBody = Type.Object(
  {
    steps: Type.Array(
      Type.Object(
        {
          eventType: Type.String({ minLength: 1, maxLength: 200 }),
          urlPattern: Type.Optional(
            Type.String({
              minLength: 1,
              maxLength: 500,
              description: 'the whole URL, `*` matching any run of characters (e.g. "*/pricing*")',
            }),
          ),
          conditions: Type.Optional(
            Type.Record(
              Type.String({ minLength: 1, maxLength: 100 }),
              Type.Union([Type.String({ maxLength: 200 }), Type.Number(), Type.Boolean()]),
              { maxProperties: 10, description: "values the event's data must hold (compared as text)" },
            ),
          ),
        },
        { additionalProperties: false },
      ),
      { minItems: 2, maxItems: 10 },
    ),
    windowDays: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 90, default: 14, description: "days from a person's first step" }),
    ),
    ...periodFields(),
    breakdownBy: Type.Optional(
      Type.Union(
        FUNNEL_BREAKDOWNS.map((d) => Type.Literal(d)),
        {
          description:
            "also count the funnel per value of the session a person entered in (the breakdown's dimensions; a server event's entry is \"(none)\"): the 20 largest groups",
        },
      ),
    ),
    filter: Type.Optional(Filter),
  },
  { additionalProperties: false },
);
export type FunnelBodyT = Static<typeof FunnelBody>;

const FunnelSteps = Type.Array(
  Type.Object({
    index: Type.Integer(),
    label: Type.String(),
    count: Type.Integer({
      description: "people (a lead's visitors together) who reached this step in order",
    }),
    conversionFromPrevious: Type.Number(),
    conversionFromStart: Type.Number(),
    medianSecondsFromPrevious: Type.Union([Type.Number(), Type.Null()]),
  }),
);

export const Funnel = Type.Object({
  windowDays: Type.Integer(),
  period: Type.Object({ from: Type.String(), to: Type.String() }),
  steps: FunnelSteps,
  breakdown: Type.Optional(
    Type.Object(
      {
        by: Type.String(),
        groups: Type.Array(Type.Object({ key: Type.String(), steps: FunnelSteps })),
      },
      { description: "with breakdownBy: the funnel per value, most entrants first" },
    ),
  ),
});

export const RetentionQuery = Type.Object({
  ...SummaryQuery.properties,
  interval: Type.Optional(Type.Union([Type.Literal("day"), Type.Literal("week")], { default: "week" })),
  startEvent: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: "the event whose first occurrence puts a person in a cohort (default pageview)",
    }),
  ),
  returnEvent: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 200,
      description: "the event that counts as a return (default: any event)",
    }),
  ),
});

export const Retention = Type.Object({
  interval: Type.Union([Type.Literal("day"), Type.Literal("week")]),
  period: Type.Object({ from: Type.String(), to: Type.String() }),
  partialFirst: Type.Boolean({
    description:
      "the period starts after its first interval does (weekly, not on a Monday): the first cohort counts only the people whose first start event fell on the period's days",
  }),
  partialLast: Type.Boolean({
    description:
      "the period's last interval is not whole (it ends before the interval does, or holds today): every cohort's last cell, and the last cohort, count only part of it",
  }),
  cohorts: Type.Array(
    Type.Object({
      start: Type.String({
        description: "first day of the cohort's interval (YYYY-MM-DD; weeks start on Monday, UTC)",
      }),
      size: Type.Integer({ description: "people whose first start event fell in this interval" }),
      returned: Type.Array(Type.Integer(), {
        description:
          "returned[k]: people of the cohort with a return event k intervals later; returned[0] is the size",
      }),
    }),
  ),
});

/** GET /api/export/events: the events as a download, optionally narrowed by the report filter. */
export const ExportQuery = Type.Object({
  from: Type.Optional(
    Type.String({
      maxLength: 40,
      description: "ISO date (its whole UTC day) or date-time; default: the first event",
    }),
  ),
  to: Type.Optional(
    Type.String({ maxLength: 40, description: "ISO date (inclusive) or date-time; default: now" }),
  ),
  format: Type.Optional(Type.Union([Type.Literal("ndjson"), Type.Literal("csv")], { default: "ndjson" })),
  filter: Type.Optional(
    Type.String({
      maxLength: 4000,
      description:
        "the report filter (JSON array of conditions, as on /api/analytics/*): only events that meet it, each judged by its own session",
    }),
  ),
});
