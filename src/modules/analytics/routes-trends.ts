import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { projectOf } from "../../platform/auth/plugin.js";
import { trendsTask } from "./read-tasks.js";
import { planTrends } from "./reports/trends.js";
import { Trends, TrendsBody } from "./reports/trends-schema.js";

/** Trends: a POST for its body's size, a read like every report (read keys, the read limit). */
export const trendsRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    "/api/analytics/trends",
    {
      schema: {
        operationId: "getAnalyticsTrends",
        summary:
          "Series of events over time (total, unique people, DAU/WAU/MAU, sum/avg/min/max/median/p90 of a property), with breakdown, formulas and the previous period",
        body: TrendsBody,
        response: { 200: Trends },
        tags: ["analytics"],
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => app.deps.reads.run(trendsTask, projectOf(req), planTrends(req.body)),
  );
};
