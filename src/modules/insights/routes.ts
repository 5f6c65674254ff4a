import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { projectOf } from "../../platform/auth/plugin.js";
import {
  CreateInsightBody,
  Deleted,
  IdParams,
  Insight,
  InsightPage,
  InsightResult,
  ListInsightsQuery,
  PatchInsightBody,
} from "./schema.js";
import * as svc from "./service.js";

const tags = ["insights"];

/** /api/insights: saved reports of the project (project API key or any session). */
export const insightRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    "/api/insights",
    {
      schema: {
        operationId: "listInsights",
        summary: "The project's saved insights, newest first (a page at a time)",
        querystring: ListInsightsQuery,
        response: { 200: InsightPage },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => svc.listInsights(app.db, projectOf(req), req.query),
  );

  app.post(
    "/api/insights",
    {
      schema: {
        operationId: "createInsight",
        summary: "Save a report's settings as an insight (kind + the report's query or body)",
        body: CreateInsightBody,
        response: { 201: Insight },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req, reply) => reply.code(201).send(await svc.createInsight(app.db, projectOf(req), req.body)),
  );

  app.get(
    "/api/insights/:id",
    {
      schema: {
        operationId: "getInsight",
        summary: "A saved insight",
        params: IdParams,
        response: { 200: Insight },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => svc.getInsight(app.db, projectOf(req), req.params.id),
  );

  app.patch(
    "/api/insights/:id",
    {
      schema: {
        operationId: "updateInsight",
        summary: "Rename an insight or replace its settings (its kind stays)",
        params: IdParams,
        body: PatchInsightBody,
        response: { 200: Insight },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) => svc.updateInsight(app.db, projectOf(req), req.params.id, req.body),
  );

  app.delete(
    "/api/insights/:id",
    {
      schema: {
        operationId: "deleteInsight",
        summary: "Delete an insight; its tiles leave every dashboard",
        params: IdParams,
        response: { 200: Deleted },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) => svc.deleteInsight(app.db, projectOf(req), req.params.id),
  );

  app.get(
    "/api/insights/:id/results",
    {
      schema: {
        operationId: "getInsightResults",
        summary: "Run the insight now: what its report endpoint answers for its settings",
        params: IdParams,
        response: { 200: InsightResult },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => svc.insightResults(app.deps, projectOf(req), req.params.id),
  );
};
