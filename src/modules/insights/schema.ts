import { type Static, type TSchema, Type } from "@sinclair/typebox";
import {
  AnalyticsSummary,
  AttributionQuery,
  AttributionSummary,
  Breakdown,
  BreakdownQuery,
  Filter,
  Funnel,
  FunnelBody,
  Paths,
  PathsBody,
  Retention,
  RetentionQuery,
  SummaryQuery,
  Timeseries,
  TimeseriesQuery,
  Trends,
  TrendsBody,
} from "../analytics/service.js";

const closed = { additionalProperties: false } as const;
/** A GET report's query as settings: the same fields, the filter as the structured array. */
const fromQuery = <T extends Record<string, TSchema>>(properties: T, description: string) => {
  const { filter: _text, ...rest } = properties;
  return Type.Object({ ...rest, filter: Type.Optional(Filter) }, { ...closed, description });
};

/**
 * A saved insight's settings are its report's request: the query of a GET report (the filter as
 * an array, as POST reports take it) or the body of a POST report. One schema per kind.
 */
export const SETTINGS = {
  summary: fromQuery(SummaryQuery.properties, "GET /api/analytics/summary's query"),
  timeseries: fromQuery(TimeseriesQuery.properties, "GET /api/analytics/timeseries's query"),
  breakdown: fromQuery(BreakdownQuery.properties, "GET /api/analytics/breakdown's query"),
  funnel: FunnelBody,
  retention: fromQuery(RetentionQuery.properties, "GET /api/analytics/retention's query"),
  attribution: fromQuery(AttributionQuery.properties, "GET /api/attribution/summary's query"),
  paths: PathsBody,
  trends: TrendsBody,
} as const;
export type InsightKind = keyof typeof SETTINGS;
export const INSIGHT_KINDS = Object.keys(SETTINGS) as InsightKind[];
export type SettingsOf<K extends InsightKind> = Static<(typeof SETTINGS)[K]>;

const RESULTS = {
  summary: AnalyticsSummary,
  timeseries: Timeseries,
  breakdown: Breakdown,
  funnel: Funnel,
  retention: Retention,
  attribution: AttributionSummary,
  paths: Paths,
  trends: Trends,
} as const;

/** The answer of a report of kind `K`. */
export type ResultOf<K extends InsightKind> = Static<(typeof RESULTS)[K]>;

const Name = Type.String({ minLength: 1, maxLength: 200 });
const Description = Type.String({ maxLength: 2000 });
const Kind = Type.Union(
  INSIGHT_KINDS.map((k) => Type.Literal(k)),
  {
    description: "the report: summary, timeseries, breakdown, funnel, retention, attribution, paths, trends",
  },
);

/** The body of POST /api/insights: one branch per kind, so a 400 names the field of that kind. */
export const CreateInsightBody = Type.Union(
  INSIGHT_KINDS.map((kind) =>
    Type.Object(
      {
        kind: Type.Literal(kind),
        name: Name,
        description: Type.Optional(Type.Union([Description, Type.Null()])),
        settings: SETTINGS[kind],
      },
      closed,
    ),
  ),
);
export type CreateInsightBodyT = Static<typeof CreateInsightBody>;

export const PatchInsightBody = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Type.Union([Description, Type.Null()])),
    settings: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: "the settings of the insight's kind" }),
    ),
  },
  { ...closed, description: "the kind cannot change; settings replace the old ones whole" },
);
export type PatchInsightBodyT = Static<typeof PatchInsightBody>;

export const Insight = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  kind: Kind,
  settings: Type.Object({}, { additionalProperties: true }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type InsightT = Static<typeof Insight>;

/** A report's answer, tagged with its kind (the answer of the report endpoint for the settings). */
export const InsightResult = Type.Union(
  INSIGHT_KINDS.map((kind) => Type.Object({ kind: Type.Literal(kind), result: RESULTS[kind] })),
);
export type InsightResultT = Static<typeof InsightResult>;

const Cursor = Type.Optional(Type.String({ maxLength: 400, description: "nextCursor of the previous page" }));
const Limit = Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 }));
export const ListInsightsQuery = Type.Object(
  { kind: Type.Optional(Kind), limit: Limit, cursor: Cursor },
  closed,
);
export const InsightPage = Type.Object({
  items: Type.Array(Insight, { description: "newest first" }),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});
export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
export const Deleted = Type.Object({ id: Type.String(), deleted: Type.Literal(true) });

// ---------------------------------------------------------------- dashboards

export const GRID_COLUMNS = 12;
export const MAX_TILES = 24;

export const DashboardItem = Type.Object(
  {
    insightId: Type.String({ minLength: 1, maxLength: 100 }),
    x: Type.Integer({ minimum: 0, maximum: GRID_COLUMNS - 1, description: "column, 0 = left" }),
    y: Type.Integer({ minimum: 0, maximum: 200, description: "row, 0 = top" }),
    w: Type.Integer({ minimum: 1, maximum: GRID_COLUMNS, description: "width in columns of 12" }),
    h: Type.Integer({ minimum: 1, maximum: 8, description: "height in rows" }),
  },
  closed,
);
export type DashboardItemT = Static<typeof DashboardItem>;
const Items = Type.Array(DashboardItem, {
  maxItems: MAX_TILES,
  description: "the grid: each tile an insight of the project at a place; tiles may not overlap",
});

export const CreateDashboardBody = Type.Object(
  {
    name: Name,
    description: Type.Optional(Type.Union([Description, Type.Null()])),
    items: Type.Optional(Items),
  },
  closed,
);
export type CreateDashboardBodyT = Static<typeof CreateDashboardBody>;
export const PatchDashboardBody = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Type.Union([Description, Type.Null()])),
    items: Type.Optional(Items),
  },
  { ...closed, description: "items replace the whole grid" },
);
export type PatchDashboardBodyT = Static<typeof PatchDashboardBody>;

export const Dashboard = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  items: Type.Array(DashboardItem),
  shared: Type.Union([Type.Object({ since: Type.String() }), Type.Null()], {
    description: "the public link's creation time while one exists (the link itself is shown once)",
  }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
export type DashboardT = Static<typeof Dashboard>;
export const DashboardPage = Type.Object({
  items: Type.Array(Dashboard, { description: "newest first" }),
  nextCursor: Type.Union([Type.String(), Type.Null()]),
});
export const ListDashboardsQuery = Type.Object({ limit: Limit, cursor: Cursor }, closed);

const TileError = Type.Object({
  code: Type.String(),
  message: Type.String({ description: "why this tile has no result (e.g. its cohort was deleted)" }),
});
const tileFields = {
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  x: Type.Integer(),
  y: Type.Integer(),
  w: Type.Integer(),
  h: Type.Integer(),
  answer: Type.Union([InsightResult, Type.Null()], { description: "null when the tile failed" }),
  error: Type.Union([TileError, Type.Null()]),
};
export const DashboardResults = Type.Object({
  dashboard: Dashboard,
  tiles: Type.Array(
    Type.Object({ insightId: Type.String(), kind: Kind, ...tileFields }, { description: "in grid order" }),
  ),
  computedAt: Type.String({
    description:
      "when the tiles' results were computed: kept a minute per dashboard version, then up to 15 minutes while recomputed in the background",
  }),
});
export type DashboardResultsT = Static<typeof DashboardResults>;
export const DashboardResultsQuery = Type.Object(
  {
    refresh: Type.Optional(
      Type.Boolean({ default: false, description: "compute the results now instead of a kept answer" }),
    ),
    period: Type.Optional(
      Type.Union([Type.Literal("7d"), Type.Literal("30d"), Type.Literal("90d"), Type.Literal("custom")], {
        description:
          "the dashboard's period: replaces every tile's saved period while set (attribution tiles keep theirs for a custom range)",
      }),
    ),
    from: Type.Optional(Type.String({ maxLength: 40, description: "with period=custom: the first day" })),
    to: Type.Optional(Type.String({ maxLength: 40, description: "with period=custom: the last day" })),
    filter: Type.Optional(
      Type.String({
        maxLength: 4000,
        description:
          "the dashboard's filter (JSON array of conditions, as the reports' `filter`): added to every tile's own",
      }),
    ),
  },
  closed,
);
export type DashboardResultsQueryT = Static<typeof DashboardResultsQuery>;

export const ShareLink = Type.Object({
  token: Type.String({ description: "shown once; only its hash is stored" }),
  url: Type.String({ description: "the public page (PUBLIC_URL/share/<token>)" }),
  since: Type.String(),
});

/** What the public link shows: names and results only — no ids, no settings, no other data. */
export const SharedDashboard = Type.Object({
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  tiles: Type.Array(Type.Object({ kind: Kind, ...tileFields })),
  computedAt: Type.String({ description: "results are computed at most once a minute per dashboard" }),
});
export type SharedDashboardT = Static<typeof SharedDashboard>;
export const TokenParams = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) });
