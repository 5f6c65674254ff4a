import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { projectOf } from "../../platform/auth/plugin.js";
import {
  Paths,
  PathsBody,
  PickerItems,
  PickerQuery,
  PropertyKeysQuery,
  ValuesQuery,
} from "./reports/explore-schema.js";
import { parseFilter } from "./filters/filter.js";
import { pathsTask } from "./read-tasks.js";
import { resolvePeriod } from "./reports/period.js";
import { eventNames, keyValues, propertyKeys } from "./reports/pickers.js";

const tags = ["analytics"];

/** Paths and the pickers' autocomplete. */
export const exploreRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    "/api/analytics/paths",
    {
      schema: {
        operationId: "getAnalyticsPaths",
        summary: "The most common paths after (or before) a page or event, up to 5 steps, with drop-off",
        body: PathsBody,
        response: { 200: Paths },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => {
      const b = req.body;
      return app.deps.reads.run(pathsTask, projectOf(req), {
        query: {
          start: { event: b.start.event ?? "pageview", page: b.start.page },
          direction: b.direction ?? "after",
          steps: b.steps ?? 3,
          limit: b.limit ?? 10,
        },
        period: resolvePeriod({
          period: b.period ?? (b.from || b.to ? undefined : "7d"),
          from: b.from,
          to: b.to,
        }),
        conds: parseFilter(b.filter, "body.filter"),
      });
    },
  );

  app.get(
    "/api/analytics/pickers/event-names",
    {
      schema: {
        operationId: "pickEventNames",
        summary: "Event types seen in the last 13 weeks (autocomplete)",
        querystring: PickerQuery,
        response: { 200: PickerItems },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => eventNames(app.db, projectOf(req), req.query.prefix, req.query.limit ?? 20),
  );

  app.get(
    "/api/analytics/pickers/property-keys",
    {
      schema: {
        operationId: "pickPropertyKeys",
        summary: "Property keys seen in the newest events' data or leads' properties (autocomplete)",
        querystring: PropertyKeysQuery,
        response: { 200: PickerItems },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => propertyKeys(app.deps, projectOf(req), req.query),
  );

  app.get(
    "/api/analytics/pickers/values",
    {
      schema: {
        operationId: "pickValues",
        summary: "The most common values of a filter key (autocomplete)",
        querystring: ValuesQuery,
        response: { 200: PickerItems },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => keyValues(app.deps, projectOf(req), req.query),
  );
};
