import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import * as svc from "./communications.js";
import {
  Communication,
  CreateCommunicationBody,
  Deleted,
  IdParam,
  PatchCommunicationBody,
  Preview,
  PreviewBody,
} from "./schema.js";
import type { Variables } from "../../platform/mail/template/engine.js";
import { projectOf } from "../../platform/auth/plugin.js";

const tags = ["communications"];

/** Workspace templates: any session or project key reads; admins write. */
export const communicationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const read = app.requireProject("read");
  const admin = app.requireAdmin();
  app.get(
    "/api/communications",
    {
      schema: {
        operationId: "listCommunications",
        summary: "List the workspace's email templates",
        response: { 200: Type.Array(Communication) },
        tags,
      },
      preHandler: read,
    },
    async (req) => svc.listCommunications(app.db, projectOf(req).workspaceId),
  );
  app.get(
    "/api/communications/:id",
    {
      schema: {
        operationId: "getCommunication",
        summary: "Get an email template",
        params: IdParam,
        response: { 200: Communication },
        tags,
      },
      preHandler: read,
    },
    async (req) => svc.getCommunication(app.db, projectOf(req).workspaceId, req.params.id),
  );
  app.post(
    "/api/communications",
    {
      schema: {
        operationId: "createCommunication",
        summary: "Create an email template",
        errors: ["CONFLICT"],
        body: CreateCommunicationBody,
        response: { 201: Communication },
        tags,
      },
      preHandler: admin,
    },
    async (req, reply) =>
      reply.code(201).send(await svc.createCommunication(app.db, req.principal.workspaceId, req.body)),
  );
  app.patch(
    "/api/communications/:id",
    {
      schema: {
        operationId: "updateCommunication",
        summary: "Change an email template",
        params: IdParam,
        body: PatchCommunicationBody,
        response: { 200: Communication },
        tags,
      },
      preHandler: admin,
    },
    async (req) => svc.updateCommunication(app.db, req.principal.workspaceId, req.params.id, req.body),
  );
  app.delete(
    "/api/communications/:id",
    {
      schema: {
        operationId: "deleteCommunication",
        summary: "Delete an email template (built-in ones cannot be deleted)",
        errors: ["CONFLICT"],
        params: IdParam,
        response: { 200: Deleted },
        tags,
      },
      preHandler: admin,
    },
    async (req) => svc.deleteCommunication(app.db, req.principal.workspaceId, req.params.id),
  );
  app.post(
    "/api/communications/:id/preview",
    {
      schema: {
        operationId: "previewCommunication",
        summary: "Render an email template with sample variables",
        params: IdParam,
        body: PreviewBody,
        response: { 200: Preview },
        tags,
      },
      preHandler: read,
    },
    async (req) =>
      svc.previewCommunication(
        app.dbHandle,
        projectOf(req).workspaceId,
        req.params.id,
        (req.body?.variables ?? {}) as Variables,
      ),
  );
};
