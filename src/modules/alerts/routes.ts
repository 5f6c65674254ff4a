import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { projectOf } from "../../platform/auth/plugin.js";
import {
  Alert,
  AlertPage,
  CreateAlertBody,
  Deleted,
  Evaluation,
  FiringPage,
  IdParams,
  ListQuery,
  PatchAlertBody,
} from "./schema.js";
import * as svc from "./service.js";

const tags = ["alerts"];

/** /api/alerts: a project's alerts on trend series (project API key or any session, as insights). */
export const alertRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    "/api/alerts",
    {
      schema: {
        operationId: "listAlerts",
        summary: "The project's alerts, newest first (a page at a time)",
        querystring: ListQuery,
        response: { 200: AlertPage },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => svc.listAlerts(app.db, projectOf(req), req.query),
  );

  app.post(
    "/api/alerts",
    {
      schema: {
        operationId: "createAlert",
        summary:
          "Alert when one trend series' latest complete bucket crosses a threshold or changes by a percent",
        body: CreateAlertBody,
        response: { 201: Alert },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req, reply) => reply.code(201).send(await svc.createAlert(app.db, projectOf(req), req.body)),
  );

  app.get(
    "/api/alerts/:id",
    {
      schema: {
        operationId: "getAlert",
        summary: "An alert and its state",
        params: IdParams,
        response: { 200: Alert },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => svc.getAlert(app.db, projectOf(req), req.params.id),
  );

  app.patch(
    "/api/alerts/:id",
    {
      schema: {
        operationId: "updateAlert",
        summary: "Change an alert (a new query or condition starts its state afresh)",
        params: IdParams,
        body: PatchAlertBody,
        response: { 200: Alert },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) => svc.updateAlert(app.db, projectOf(req), req.params.id, req.body),
  );

  app.delete(
    "/api/alerts/:id",
    {
      schema: {
        operationId: "deleteAlert",
        summary: "Delete an alert and its history of firings",
        params: IdParams,
        response: { 200: Deleted },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) => svc.deleteAlert(app.db, projectOf(req), req.params.id),
  );

  app.get(
    "/api/alerts/:id/firings",
    {
      schema: {
        operationId: "listAlertFirings",
        summary: "The alert's firings, newest first (a page at a time)",
        params: IdParams,
        querystring: ListQuery,
        response: { 200: FiringPage },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => svc.listFirings(app.db, projectOf(req), req.params.id, req.query),
  );

  app.post(
    "/api/alerts/:id/check",
    {
      schema: {
        operationId: "checkAlert",
        summary: "Check the alert now: its latest complete bucket, and whether this check fired",
        params: IdParams,
        response: { 200: Evaluation },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) => svc.checkAlert(app.deps, projectOf(req), req.params.id),
  );
};
