import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { projectOf } from "../../platform/auth/plugin.js";
import {
  CreateDashboardBody,
  Dashboard,
  DashboardPage,
  DashboardResults,
  DashboardResultsQuery,
  Deleted,
  IdParams,
  ListDashboardsQuery,
  PatchDashboardBody,
  ShareLink,
} from "./schema.js";
import * as svc from "./service.js";

const tags = ["insights"];

/** /api/dashboards: grids of saved insights, their results, and their public links. */
export const dashboardRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    "/api/dashboards",
    {
      schema: {
        operationId: "listDashboards",
        summary: "The project's dashboards, newest first (a page at a time)",
        querystring: ListDashboardsQuery,
        response: { 200: DashboardPage },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => svc.listDashboards(app.db, projectOf(req), req.query),
  );

  app.post(
    "/api/dashboards",
    {
      schema: {
        operationId: "createDashboard",
        summary: "Create a dashboard: a grid of the project's insights",
        body: CreateDashboardBody,
        response: { 201: Dashboard },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req, reply) => reply.code(201).send(await svc.createDashboard(app.db, projectOf(req), req.body)),
  );

  app.get(
    "/api/dashboards/:id",
    {
      schema: {
        operationId: "getDashboard",
        summary: "A dashboard",
        params: IdParams,
        response: { 200: Dashboard },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => svc.getDashboard(app.db, projectOf(req), req.params.id),
  );

  app.patch(
    "/api/dashboards/:id",
    {
      schema: {
        operationId: "updateDashboard",
        summary: "Rename a dashboard or replace its grid",
        params: IdParams,
        body: PatchDashboardBody,
        response: { 200: Dashboard },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) => svc.updateDashboard(app.db, projectOf(req), req.params.id, req.body),
  );

  app.delete(
    "/api/dashboards/:id",
    {
      schema: {
        operationId: "deleteDashboard",
        summary: "Delete a dashboard (its public link stops at once; its insights stay)",
        params: IdParams,
        response: { 200: Deleted },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) => svc.deleteDashboard(app.db, projectOf(req), req.params.id),
  );

  app.get(
    "/api/dashboards/:id/results",
    {
      schema: {
        operationId: "getDashboardResults",
        summary:
          "Every insight of the dashboard in grid order: a kept answer (computedAt), or computed now with refresh=true",
        params: IdParams,
        querystring: DashboardResultsQuery,
        response: { 200: DashboardResults },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => svc.dashboardResults(app.deps, projectOf(req), req.params.id, req.query),
  );

  app.post(
    "/api/dashboards/:id/share",
    {
      schema: {
        operationId: "shareDashboard",
        summary: "Create the dashboard's read-only public link (replaces an earlier one; shown once)",
        params: IdParams,
        response: { 201: ShareLink },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(await svc.shareDashboard(app.db, projectOf(req), req.params.id, app.config.publicUrl)),
  );

  app.delete(
    "/api/dashboards/:id/share",
    {
      schema: {
        operationId: "unshareDashboard",
        summary: "Revoke the dashboard's public link (it answers 404 at once)",
        params: IdParams,
        response: { 200: Deleted },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) => svc.unshareDashboard(app.db, projectOf(req), req.params.id),
  );
};
