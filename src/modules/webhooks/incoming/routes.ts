import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { AppError } from "../../../platform/errors.js";
import { Type } from "@sinclair/typebox";
import {
  IncomingQuery,
  IncomingResult,
  PutSourceBody,
  SourceConfigured,
  SourceListItem,
  SourceParam,
} from "../schema.js";
import { handleIncoming, knownSource, listSources, setSourceSecret } from "./service.js";

const tags = ["webhooks"];

/** Incoming platform webhooks, authenticated by the platform's signature, and their secrets. */
export const incomingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    "/api/webhooks/sources",
    {
      schema: {
        operationId: "listWebhookSources",
        summary: "List incoming webhook sources and whether their secrets are set",
        response: { 200: Type.Array(SourceListItem) },
        tags,
      },
      preHandler: app.requireAdmin(),
    },
    async (req) => listSources(app.db, req.principal.workspaceId, app.config.publicUrl),
  );

  app.put(
    "/api/webhooks/sources/:source",
    {
      schema: {
        operationId: "setWebhookSourceSecret",
        summary: "Set the secret that verifies a platform's incoming webhooks",
        params: SourceParam,
        body: PutSourceBody,
        response: { 200: SourceConfigured },
        tags,
      },
      preHandler: app.requireAdmin(),
    },
    async (req) =>
      setSourceSecret(app.db, app.secrets, req.principal.workspaceId, req.params.source, req.body.secret),
  );

  app.post(
    "/api/webhooks/:source",
    {
      schema: {
        operationId: "receivePlatformWebhook",
        summary: "Receive a platform's webhook, verified by its signature",
        errors: ["UNAUTHORIZED", "NOT_FOUND"],
        params: SourceParam,
        querystring: IncomingQuery,
        response: { 200: IncomingResult },
        tags,
      },
      // An unknown source is 404 before anything else is looked at.
      preValidation: async (req) => {
        knownSource((req.params as { source: string }).source);
      },
    },
    async (req) => {
      if (req.rawBody === undefined) throw new AppError("VALIDATION_ERROR", "body must be JSON");
      return handleIncoming(
        app.deps,
        req.params.source,
        {
          method: req.method,
          uri: `${app.config.publicUrl}${req.url}`,
          rawBody: req.rawBody,
          headers: req.headers,
          body: req.body,
          now: Date.now(),
        },
        req.query.project,
      );
    },
  );
};
