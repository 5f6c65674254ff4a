import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { listTxKeys, mintTxKey, revokeTxKey } from "./keys.js";
import { getSendWithTimeline, liftSuppression, listRecent, listSuppressions } from "./records.js";
import {
  CreateTxKeyBody,
  Deleted,
  EmailParam,
  IdParam,
  KeyIdParam,
  MintedTxKey,
  RecentQuery,
  SendDetail,
  SendSummary,
  Suppression,
  TxKey,
} from "./schema.js";

const tags = ["transactional"];

/** Workspace-admin endpoints: keys, the send log, the suppression list. */
export const txAdminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const admin = app.requireAdmin();
  app.get(
    "/api/transactional-api-keys",
    {
      schema: {
        operationId: "listTransactionalKeys",
        summary: "List transactional API keys (prefixes only)",
        response: { 200: Type.Array(TxKey) },
        tags,
      },
      preHandler: admin,
    },
    async (req) => listTxKeys(app.db, req.principal.workspaceId),
  );
  app.post(
    "/api/transactional-api-keys",
    {
      schema: {
        operationId: "createTransactionalKey",
        summary: "Mint a transactional API key (the raw key is returned once)",
        body: CreateTxKeyBody,
        response: { 201: MintedTxKey },
        tags,
      },
      preHandler: admin,
    },
    async (req, reply) =>
      reply.code(201).send(await mintTxKey(app.db, req.principal.workspaceId, req.body.name)),
  );
  app.delete(
    "/api/transactional-api-keys/:keyId",
    {
      schema: {
        operationId: "revokeTransactionalKey",
        summary: "Revoke a transactional API key",
        params: KeyIdParam,
        response: { 200: Deleted },
        tags,
      },
      preHandler: admin,
    },
    async (req) => revokeTxKey(app.db, req.principal.workspaceId, req.params.keyId),
  );
  app.get(
    "/api/transactional/recent",
    {
      schema: {
        operationId: "listRecentSends",
        summary: "Recent transactional sends",
        querystring: RecentQuery,
        response: { 200: Type.Array(SendSummary) },
        tags,
      },
      preHandler: admin,
    },
    async (req) => listRecent(app.db, req.principal.workspaceId, req.query.limit ?? 100),
  );
  app.get(
    "/api/transactional/sends/:id",
    {
      schema: {
        operationId: "getSend",
        summary: "A transactional send with its delivery timeline",
        params: IdParam,
        response: { 200: SendDetail },
        tags,
      },
      preHandler: admin,
    },
    async (req) => getSendWithTimeline(app.db, req.principal.workspaceId, req.params.id),
  );
  app.get(
    "/api/transactional/suppressions",
    {
      schema: {
        operationId: "listSuppressions",
        summary: "Addresses that receive no more email (bounces, complaints)",
        response: { 200: Type.Array(Suppression) },
        tags,
      },
      preHandler: admin,
    },
    async (req) => listSuppressions(app.db, req.principal.workspaceId),
  );
  app.delete(
    "/api/transactional/suppressions/:email",
    {
      schema: {
        operationId: "deleteSuppression",
        summary: "Lift the suppression of an address",
        params: EmailParam,
        response: { 200: Deleted },
        tags,
      },
      preHandler: admin,
    },
    async (req) => liftSuppression(app.db, req.principal.workspaceId, req.params.email),
  );
};
