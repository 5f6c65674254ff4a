import { type Static, Type } from "@sinclair/typebox";
import { GoalAnswer } from "../schema.js";
import { REPORT_SCOPE, TREND_INTERVALS } from "./trends-schema.js";

/** POST /api/analytics/web: the web view, as Plausible's dashboard. */

/** The lists of the view, in the dashboard's order. */
export const WEB_LISTS = [
  "pages",
  "entry_pages",
  "exit_pages",
  "sources",
  "channels",
  "utm_source",
  "utm_medium",
  "utm_campaign",
  "utm_term",
  "utm_content",
  "countries",
  "devices",
  "browsers",
  "os",
] as const;
export type WebList = (typeof WEB_LISTS)[number];

/** What a two-level breakdown can group visits by: a value of the visit. */
export const WEB_BREAKDOWN_KEYS = [
  "channel",
  "source",
  "utm_source",
  "utm_medium",
  "utm_campaign",
  "utm_term",
  "utm_content",
  "entry_page",
  "exit_page",
  "country",
  "device",
  "browser",
  "os",
] as const;
export type WebBreakdownKey = (typeof WEB_BREAKDOWN_KEYS)[number];

export const WebBody = Type.Object(
  {
    ...REPORT_SCOPE,
    interval: Type.Optional(
      Type.Union(
        TREND_INTERVALS.map((i) => Type.Literal(i)),
        { default: "day", description: "the chart's UTC buckets (by the visit's start); at most 744" },
      ),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, default: 10, description: "rows per list (the top ones)" }),
    ),
    lists: Type.Optional(
      Type.Array(Type.Union(WEB_LISTS.map((l) => Type.Literal(l))), {
        maxItems: WEB_LISTS.length,
        uniqueItems: true,
        description: "the lists to answer (default: all)",
      }),
    ),
    breakdown: Type.Optional(
      Type.Array(Type.Union(WEB_BREAKDOWN_KEYS.map((k) => Type.Literal(k))), {
        minItems: 1,
        maxItems: 2,
        description: 'visits grouped by one or two of their values, e.g. ["channel", "device"]',
      }),
    ),
  },
  { additionalProperties: false },
);
export type WebBodyT = Static<typeof WebBody>;

const Metric = Type.Object({
  value: Type.Number(),
  previous: Type.Number({ description: "the same over the previous period of the same length" }),
});

const Row = Type.Object({
  value: Type.String({ description: '"(none)" when the visit has no value' }),
  visitors: Type.Integer({ description: "distinct visitors (browsers)" }),
  visits: Type.Integer(),
  pageviews: Type.Integer(),
  conversions: Type.Optional(
    Type.Number({ description: "the goal's counted conversions in these visits (not on page lists)" }),
  ),
});
export type WebRowT = Static<typeof Row>;

const List = Type.Object({
  rows: Type.Array(Row, { description: "the top `limit` by visitors (pages: by pageviews)" }),
  more: Type.Boolean({ description: "whether other values exist past these rows" }),
});

export const Web = Type.Object({
  period: Type.Object({ from: Type.String(), to: Type.String() }),
  compare: Type.Object({ from: Type.String(), to: Type.String() }),
  interval: Type.String(),
  goal: GoalAnswer,
  headline: Type.Object({
    visitors: Metric,
    visits: Metric,
    pageviews: Metric,
    viewsPerVisit: Metric,
    bounceRate: Type.Object(
      { value: Type.Number(), previous: Type.Number() },
      { description: "share (0–1) of visits with exactly one page view" },
    ),
    visitDuration: Type.Object(
      { value: Type.Number(), previous: Type.Number() },
      { description: "mean seconds from a visit's first event to its last" },
    ),
    conversions: Metric,
    conversionRate: Type.Object(
      { value: Type.Number(), previous: Type.Number() },
      { description: "share (0–1) of visits with a counted conversion of the goal" },
    ),
  }),
  chart: Type.Array(
    Type.Object({
      bucket: Type.String(),
      visitors: Type.Integer(),
      visits: Type.Integer(),
      pageviews: Type.Integer(),
    }),
  ),
  lists: Type.Partial(
    Type.Object(Object.fromEntries(WEB_LISTS.map((l) => [l, List])) as Record<WebList, typeof List>),
  ),
  breakdown: Type.Optional(
    Type.Object({
      keys: Type.Array(Type.String()),
      rows: Type.Array(
        Type.Object({
          values: Type.Array(Type.String()),
          visitors: Type.Integer(),
          visits: Type.Integer(),
          pageviews: Type.Integer(),
          bounceRate: Type.Number(),
          visitDuration: Type.Number(),
        }),
      ),
      more: Type.Boolean(),
    }),
  ),
});
export type WebT = Static<typeof Web>;
