import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { AppError } from "../../platform/errors.js";
import { type Period, connectorMetrics, overview } from "./metrics.js";
import {
  AuthQuery,
  CallbackParam,
  CallbackQuery,
  Connector,
  ConnectorMetricsResponse,
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
import { projectOf } from "../../platform/auth/plugin.js";

const tags = ["connectors"];

export const connectorRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    "/api/connectors",
    {
      schema: {
        operationId: "listConnectors",
        summary: "List the project's connectors and their status",
        response: { 200: Type.Array(Connector) },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => listConnectors(app.deps, projectOf(req)),
  );

  app.post(
    "/api/connectors",
    {
      schema: {
        operationId: "createConnector",
        summary: "Connect a platform with API credentials",
        errors: ["BAD_GATEWAY"],
        body: CreateConnectorBody,
        response: { 201: Connector },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(await connectWithCredentials(app.deps, projectOf(req), req.body.type, req.body.credentials)),
  );

  app.delete(
    "/api/connectors",
    {
      schema: {
        operationId: "deleteConnector",
        summary: "Disconnect a platform and revoke its stored credentials",
        body: DeleteConnectorBody,
        response: { 200: Deleted },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) => disconnect(app.deps, projectOf(req), req.body.type),
  );

  app.get(
    "/api/connectors/:type/auth",
    {
      schema: {
        operationId: "startConnectorOAuth",
        summary: "Start connecting a platform: redirects to its consent screen",
        errors: ["FORBIDDEN"],
        security: [{ session: [] }],
        params: TypeParam,
        querystring: AuthQuery,
        response: { 302: Type.Null({ description: "Redirect to the platform's consent screen" }) },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req, reply) => {
      // Consent binds the grant to a person: a project API key cannot start it.
      if (req.principal.kind !== "session") {
        throw new AppError("FORBIDDEN", "connecting through OAuth needs a signed-in user");
      }
      let project = projectOf(req);
      if (req.query.projectId) {
        const chosen = await app.principalResolver.resolveSessionProject(
          req.principal.workspaceId,
          req.query.projectId,
        );
        if (!chosen || chosen.id !== req.query.projectId)
          throw new AppError("NOT_FOUND", "project not found");
        project = chosen;
      }
      return reply.redirect(await startOAuth(app.deps, project, req.principal, req.params.type), 302);
    },
  );

  app.get(
    "/api/connectors/:type/callback",
    {
      schema: {
        operationId: "completeConnectorOAuth",
        summary: "OAuth callback called by the platform; redirects to the integrations page",
        params: CallbackParam,
        querystring: CallbackQuery,
        response: { 302: Type.Null({ description: "Redirect to the integrations page, with the outcome" }) },
        tags,
      },
    },
    async (req, reply) => {
      const q = req.query as Record<string, string | undefined>;
      const session = await app.sessionOf(req);
      return reply.redirect(
        await completeOAuth(app.deps, req.params.type, q, session?.sessionId ?? null),
        302,
      );
    },
  );

  app.get(
    "/api/sync/run",
    {
      schema: {
        operationId: "runSync",
        summary: "Start syncing every connector now",
        response: { 200: SyncStarted },
        tags,
      },
      // A GET that starts work: refused cross-site on a cookie session (platform/auth/cross-site.ts).
      config: { changesState: true },
      preHandler: app.requireProject("write"),
    },
    async (req) => startSync(app.deps, projectOf(req)),
  );

  app.get(
    "/api/sync/:syncId",
    {
      schema: {
        operationId: "getSync",
        summary: "Progress of a sync",
        params: SyncIdParam,
        response: { 200: SyncProgress },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => getSync(app.deps, projectOf(req), req.params.syncId),
  );

  app.get(
    "/api/metrics",
    {
      schema: {
        operationId: "getMetricsOverview",
        summary: "Spend, conversions and returns across all connectors",
        querystring: PeriodQuery,
        tags: ["analytics"],
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => overview(app.db, projectOf(req), (req.query.period ?? "30d") as Period),
  );

  app.get(
    "/api/metrics/:connectorType",
    {
      schema: {
        operationId: "getConnectorMetrics",
        summary: "Metrics of one connector by campaign",
        params: MetricsParam,
        querystring: PeriodQuery,
        response: { 200: ConnectorMetricsResponse },
        tags: ["analytics"],
      },
      preHandler: app.requireProject("read"),
    },
    async (req) =>
      connectorMetrics(
        app.db,
        projectOf(req),
        req.params.connectorType,
        (req.query.period ?? "30d") as Period,
      ),
  );
};
