import { type Static, Type } from "@sinclair/typebox";
import { Filter, GoalParam, periodFields } from "../schema.js";

/** POST /api/analytics/trends: series of events over time, as PostHog's trends insight. */

export const TREND_MEASURES = [
  "total",
  "unique_people",
  "dau",
  "wau",
  "mau",
  "sum",
  "avg",
  "min",
  "max",
  "median",
  "p90",
] as const;
export type TrendMeasure = (typeof TREND_MEASURES)[number];
/** The measures over a numeric property of the events. */
export const NUMERIC_MEASURES = new Set<TrendMeasure>(["sum", "avg", "min", "max", "median", "p90"]);

export const TREND_INTERVALS = ["hour", "day", "week", "month"] as const;
export type TrendInterval = (typeof TREND_INTERVALS)[number];

const Series = Type.Object(
  {
    event: Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'the event type ("pageview" for page views, "signup", …), or "$conversion": the conversions of `goal` (one conversion goal, or any)',
    }),
    conditions: Type.Optional(Filter),
    measure: Type.Optional(
      Type.Union(
        TREND_MEASURES.map((m) => Type.Literal(m)),
        {
          default: "total",
          description:
            "total: events; unique_people: distinct people (a lead's visitors are one); dau / wau / mau: distinct people active in the 1 / 7 / 30 days ending with each day (interval day only); sum / avg / min / max / median / p90: of the numeric `property` (events without a number left out; median and p90 exact, interpolated)",
        },
      ),
    ),
    property: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: "the event property (its `data`) holding the number; required for the numeric measures",
      }),
    ),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "the series' label" })),
  },
  { additionalProperties: false },
);

/** The period, filter and goal a POST report (trends, the web view) is asked for, as everywhere. */
export const REPORT_SCOPE = {
  ...periodFields("default 30d"),
  filter: Type.Optional(Filter),
  goal: GoalParam,
};

export const TrendsBody = Type.Object(
  {
    series: Type.Array(Series, { minItems: 1, maxItems: 10, description: "named A, B, C … in order" }),
    interval: Type.Optional(
      Type.Union(
        TREND_INTERVALS.map((i) => Type.Literal(i)),
        {
          default: "day",
          description:
            "UTC buckets; weeks start on Monday; the first and last bucket are cut at the period's edges. At most 744 buckets (hour: 31 days)",
        },
      ),
    ),
    ...REPORT_SCOPE,
    breakdown: Type.Optional(
      Type.Object(
        {
          property: Type.String({
            minLength: 1,
            maxLength: 106,
            pattern:
              '^(channel|source|campaign|landing_page|referrer_domain|device|browser|os|country|event\\.[^"\\\\]{1,100})$',
            "x-error":
              "must be channel, source, campaign, landing_page, referrer_domain, device, browser, os, country or event.<property>",
            description:
              "a value of the event's session (channel, source, … ; a server event's is \"(none)\"), country (data.$country) or event.<property>",
          }),
          limit: Type.Optional(
            Type.Integer({
              minimum: 1,
              maximum: 50,
              default: 10,
              description: 'the values with the most events of all series; the rest together as "(other)"',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    formulas: Type.Optional(
      Type.Array(
        Type.Object(
          {
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
            expression: Type.String({
              minLength: 1,
              maxLength: 200,
              description:
                'over the series\' letters: + - * / parentheses and numbers ("A / B * 100"); x / 0 is null',
            }),
          },
          { additionalProperties: false },
        ),
        { maxItems: 5 },
      ),
    ),
    compare: Type.Optional(
      Type.Boolean({ description: "also each series over the previous period of the same length" }),
    ),
  },
  { additionalProperties: false },
);
export type TrendsBodyT = Static<typeof TrendsBody>;

const Points = Type.Array(
  Type.Object({
    bucket: Type.String({ description: "the bucket's start (ISO, UTC)" }),
    value: Type.Union([Type.Number(), Type.Null()]),
  }),
);

const TrendLine = Type.Object({
  label: Type.String(),
  letter: Type.String({ description: "the series' letter (A, B …), or F1, F2 … for a formula" }),
  breakdownValue: Type.Optional(Type.String()),
  data: Points,
  total: Type.Union([Type.Number(), Type.Null()], {
    description: "the measure over the whole period (distinct people once, not a sum of buckets)",
  }),
  compare: Type.Optional(Type.Object({ data: Points, total: Type.Union([Type.Number(), Type.Null()]) })),
});
export type TrendLineT = Static<typeof TrendLine>;

export const Trends = Type.Object({
  interval: Type.Union(TREND_INTERVALS.map((i) => Type.Literal(i))),
  period: Type.Object({ from: Type.String(), to: Type.String() }),
  compare: Type.Optional(Type.Object({ from: Type.String(), to: Type.String() })),
  series: Type.Array(TrendLine, { description: "per series, and per breakdown value" }),
  formulas: Type.Array(TrendLine),
});
export type TrendsT = Static<typeof Trends>;
