import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { parseFilter, parseFilterParam } from "./filter.js";
import { resolvePeriod } from "./period.js";
import {
  attributionReport,
  breakdownReport,
  funnelReport,
  retentionReport,
  summaryReport,
  timeseriesReport,
} from "./reports.js";
import {
  AnalyticsSummary,
  AttributionQuery,
  AttributionSummary,
  Breakdown,
  BreakdownQuery,
  Funnel,
  FunnelBody,
  Retention,
  RetentionQuery,
  SummaryQuery,
  Timeseries,
  TimeseriesQuery,
} from "./schema.js";
import { projectOf } from "../../platform/auth/plugin.js";

const tags = ["analytics"];

export const analyticsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    "/api/analytics/summary",
    {
      schema: {
        operationId: "getAnalyticsSummary",
        summary: "Visitors, leads, conversions and top channels for a period",
        querystring: SummaryQuery,
        response: { 200: AnalyticsSummary },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) =>
      summaryReport(app.db, projectOf(req), resolvePeriod(req.query), parseFilterParam(req.query.filter)),
  );

  app.get(
    "/api/analytics/timeseries",
    {
      schema: {
        summary: "Visitors, leads, conversions and revenue per day or week (zero-filled)",
        querystring: TimeseriesQuery,
        response: { 200: Timeseries },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) =>
      timeseriesReport(
        app.db,
        projectOf(req),
        resolvePeriod(req.query),
        req.query.interval ?? "day",
        parseFilterParam(req.query.filter),
      ),
  );

  app.get(
    "/api/analytics/breakdown",
    {
      schema: {
        operationId: "getAnalyticsBreakdown",
        summary: "Visitors, conversions and revenue per value of a dimension (channel, source, device …)",
        querystring: BreakdownQuery,
        response: { 200: Breakdown },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) =>
      breakdownReport(
        app.db,
        projectOf(req),
        req.query.by,
        resolvePeriod(req.query),
        req.query.limit ?? 10,
        parseFilterParam(req.query.filter),
      ),
  );

  app.post(
    "/api/analytics/funnel",
    {
      schema: {
        operationId: "getAnalyticsFunnel",
        summary: "How many people went through 2–10 steps in order, within a window from their first step",
        body: FunnelBody,
        response: { 200: Funnel },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => {
      const { steps, windowDays, period, from, to, breakdownBy, filter } = req.body;
      return funnelReport(
        app.db,
        projectOf(req),
        steps,
        windowDays ?? 14,
        resolvePeriod({ period, from, to }),
        breakdownBy,
        parseFilter(filter, "body.filter"),
      );
    },
  );

  app.get(
    "/api/analytics/retention",
    {
      schema: {
        operationId: "getAnalyticsRetention",
        summary: "Cohorts by a person's first start event, and how many came back in each later interval",
        querystring: RetentionQuery,
        response: { 200: Retention },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) =>
      retentionReport(
        app.db,
        projectOf(req),
        resolvePeriod(req.query),
        req.query.interval ?? "week",
        req.query.startEvent ?? "pageview",
        req.query.returnEvent ?? null,
        parseFilterParam(req.query.filter),
      ),
  );

  app.get(
    "/api/attribution/summary",
    {
      schema: {
        operationId: "getAttributionSummary",
        summary: "Conversions and revenue credited to channels by an attribution model",
        querystring: AttributionQuery,
        response: { 200: AttributionSummary },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) =>
      attributionReport(
        app.db,
        projectOf(req),
        req.query.model ?? "position_based",
        resolvePeriod({ period: req.query.period ?? "30d" }),
        parseFilterParam(req.query.filter),
      ),
  );
};
