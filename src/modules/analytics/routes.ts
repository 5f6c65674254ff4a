import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { parseFilter, parseFilterParam } from "./filters/filter.js";
import { resolvePeriod } from "./reports/period.js";
import {
  attributionTask,
  breakdownTask,
  funnelTask,
  goalsTableTask,
  retentionTask,
  summaryTask,
  timeseriesTask,
} from "./read-tasks.js";
import {
  AnalyticsSummary,
  AttributionQuery,
  AttributionSummary,
  Breakdown,
  BreakdownQuery,
  Funnel,
  FunnelBody,
  GoalsQuery,
  GoalsTable,
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
      app.deps.reads.run(summaryTask, projectOf(req), {
        period: resolvePeriod(req.query),
        conds: parseFilterParam(req.query.filter),
        goal: req.query.goal,
      }),
  );

  app.get(
    "/api/analytics/goals",
    {
      schema: {
        operationId: "getAnalyticsGoals",
        summary:
          "Each conversion goal's converted visitors and rate over the period's visitors, side by side",
        querystring: GoalsQuery,
        response: { 200: GoalsTable },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) =>
      app.deps.reads.run(goalsTableTask, projectOf(req), {
        period: resolvePeriod(req.query),
        conds: parseFilterParam(req.query.filter),
      }),
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
      app.deps.reads.run(timeseriesTask, projectOf(req), {
        period: resolvePeriod(req.query),
        interval: req.query.interval ?? "day",
        conds: parseFilterParam(req.query.filter),
        goal: req.query.goal,
      }),
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
      app.deps.reads.run(breakdownTask, projectOf(req), {
        by: req.query.by,
        period: resolvePeriod(req.query),
        limit: req.query.limit ?? 10,
        conds: parseFilterParam(req.query.filter),
        goal: req.query.goal,
      }),
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
      return app.deps.reads.run(funnelTask, projectOf(req), {
        steps,
        windowDays: windowDays ?? 14,
        period: resolvePeriod({ period, from, to }),
        breakdownBy,
        conds: parseFilter(filter, "body.filter"),
      });
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
      app.deps.reads.run(retentionTask, projectOf(req), {
        period: resolvePeriod(req.query),
        interval: req.query.interval ?? "week",
        startEvent: req.query.startEvent ?? "pageview",
        returnEvent: req.query.returnEvent ?? null,
        conds: parseFilterParam(req.query.filter),
      }),
  );

  app.get(
    "/api/attribution/summary",
    {
      schema: {
        operationId: "getAttributionSummary",
        summary:
          "Conversions and revenue credited to channels (or sources, media, campaigns: `by`) by an attribution model",
        querystring: AttributionQuery,
        response: { 200: AttributionSummary },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) =>
      app.deps.reads.run(attributionTask, projectOf(req), {
        model: req.query.model ?? "position_based",
        by: req.query.by ?? "channel",
        period: resolvePeriod({ period: req.query.period ?? "30d" }),
        conds: parseFilterParam(req.query.filter),
        goal: req.query.goal,
      }),
  );
};
