import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { attributionSummary } from "./attribution.js";
import { analyticsBreakdown } from "./breakdown.js";
import { analyticsFunnel } from "./funnel.js";
import { analyticsRetention } from "./retention.js";
import { resolvePeriod } from "./period.js";
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
import { analyticsSummary } from "./summary.js";
import { analyticsTimeseries } from "./timeseries.js";
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
    async (req) => analyticsSummary(app.db, projectOf(req), resolvePeriod(req.query)),
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
      analyticsTimeseries(app.db, projectOf(req), resolvePeriod(req.query), req.query.interval ?? "day"),
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
      analyticsBreakdown(
        app.db,
        projectOf(req),
        req.query.by,
        resolvePeriod(req.query),
        req.query.limit ?? 10,
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
      const { steps, windowDays, period, from, to, breakdownBy } = req.body;
      return analyticsFunnel(
        app.db,
        projectOf(req),
        steps,
        windowDays ?? 14,
        resolvePeriod({ period, from, to }),
        breakdownBy,
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
      analyticsRetention(
        app.db,
        projectOf(req),
        resolvePeriod(req.query),
        req.query.interval ?? "week",
        req.query.startEvent ?? "pageview",
        req.query.returnEvent ?? null,
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
      attributionSummary(
        app.db,
        projectOf(req),
        req.query.model ?? "position_based",
        resolvePeriod({ period: req.query.period ?? "30d" }),
      ),
  );
};
