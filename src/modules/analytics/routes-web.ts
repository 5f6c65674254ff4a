import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { projectOf } from "../../platform/auth/plugin.js";
import { webTask } from "./read-tasks.js";
import { planWeb } from "./reports/web.js";
import { Web, WebBody } from "./reports/web-schema.js";

/** The web view: a POST for its body's size, a read like every report (read keys, the read limit). */
export const webRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    "/api/analytics/web",
    {
      schema: {
        operationId: "getAnalyticsWeb",
        summary:
          "The web view (as Plausible's): visitors, visits, page views, views per visit, bounce rate and visit duration against the previous period, a chart, top pages, entry and exit pages, sources, channels, UTM fields, countries, devices, browsers, OS, and a two-level breakdown",
        body: WebBody,
        response: { 200: Web },
        tags: ["analytics"],
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => app.deps.reads.run(webTask, projectOf(req), planWeb(req.body)),
  );
};
