import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { AppError } from "../../platform/errors.js";
import { type Period, connectorMetrics, overview } from "./metrics.js";
import {
  AuthQuery,
  CallbackParam,
  CallbackQuery,
  Connector,
  CreateConnectorBody,
  DeleteConnectorBody,
  Deleted,
  MetricsParam,
  PeriodQuery,
  SyncIdParam,
  SyncProgress,
  SyncStarted,
  TypeParam,
} from "./schema.js";
import { completeOAuth, connectWithCredentials, disconnect, listConnectors, startOAuth } from "./service.js";
import { getSync, startSync } from "./sync.js";

const tags = ["connectors"];

export const connectorRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    "/api/connectors",
    { schema: { response: { 200: Type.Array(Connector) }, tags }, preHandler: app.requireProject("read") },
    async (req) => listConnectors(app, req.project),
  );

  app.post(
    "/api/connectors",
    {
      schema: { body: CreateConnectorBody, response: { 201: Connector }, tags },
      preHandler: app.requireProject("write"),
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(await connectWithCredentials(app, req.project, req.body.type, req.body.credentials)),
  );

  app.delete(
    "/api/connectors",
    {
      schema: { body: DeleteConnectorBody, response: { 200: Deleted }, tags },
      preHandler: app.requireProject("write"),
    },
    async (req) => disconnect(app, req.project, req.body.type),
  );

  app.get(
    "/api/connectors/:type/auth",
    { schema: { params: TypeParam, querystring: AuthQuery, tags }, preHandler: app.requireProject("write") },
    async (req, reply) => {
      // Consent binds the grant to a person: a project API key cannot start it.
      if (req.principal.kind !== "session") {
        throw new AppError("FORBIDDEN", "connecting through OAuth needs a signed-in user");
      }
      let project = req.project;
      if (req.query.projectId) {
        const chosen = await app.principalResolver.resolveSessionProject(
          req.principal.workspaceId,
          req.query.projectId,
        );
        if (!chosen || chosen.id !== req.query.projectId)
          throw new AppError("NOT_FOUND", "project not found");
        project = chosen;
      }
      return reply.redirect(await startOAuth(app, project, req.principal.userId, req.params.type), 302);
    },
  );

  app.get(
    "/api/connectors/:type/callback",
    { schema: { params: CallbackParam, querystring: CallbackQuery, tags } },
    async (req, reply) => {
      const q = req.query as Record<string, string | undefined>;
      return reply.redirect(await completeOAuth(app, req.params.type, q), 302);
    },
  );

  app.get(
    "/api/sync/run",
    { schema: { response: { 200: SyncStarted }, tags }, preHandler: app.requireProject("write") },
    async (req) => startSync(app, req.project),
  );

  app.get(
    "/api/sync/:syncId",
    {
      schema: { params: SyncIdParam, response: { 200: SyncProgress }, tags },
      preHandler: app.requireProject("read"),
    },
    async (req) => getSync(app, req.project, req.params.syncId),
  );

  app.get(
    "/api/metrics",
    { schema: { querystring: PeriodQuery, tags: ["analytics"] }, preHandler: app.requireProject("read") },
    async (req) => overview(app.db, req.project, (req.query.period ?? "30d") as Period),
  );

  app.get(
    "/api/metrics/:connectorType",
    {
      schema: { params: MetricsParam, querystring: PeriodQuery, tags: ["analytics"] },
      preHandler: app.requireProject("read"),
    },
    async (req) =>
      connectorMetrics(app.db, req.project, req.params.connectorType, (req.query.period ?? "30d") as Period),
  );
};
