import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyRequest } from "fastify";
import { projectOf } from "../../platform/auth/plugin.js";
import {
  CreateFlagBody,
  Deleted,
  EvaluateBody,
  Evaluation,
  Flag,
  FlagKeyParams,
  FlagSettings,
  HistoryEntry,
  ListFlagsQuery,
  MAX_EVAL_BODY_BYTES,
  PatchFlagBody,
  PutFlagSettingsBody,
  RuleParams,
  ShipBody,
} from "./schema.js";
import * as svc from "./service.js";

const tags = ["flags"];

/** Who made a change, for the history: the signed-in user or the project API key. */
function actorOf(req: FastifyRequest): svc.ActorT {
  const p = req.principal;
  if (p.kind === "session") return { type: "user", id: p.userId, email: p.email };
  if (p.kind === "apiKey") return { type: "apiKey", id: p.keyId };
  throw new Error(`${req.method} ${req.url}: a flag change needs a session or an API key`);
}

/** The management API: project API key or dashboard session. */
export const flagRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const deps = app.deps;

  app.get(
    "/api/flags",
    {
      schema: {
        operationId: "listFlags",
        summary: "List the project's feature flags, newest first",
        querystring: ListFlagsQuery,
        response: { 200: Type.Array(Flag) },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => svc.listFlags(deps, projectOf(req), req.query),
  );

  app.post(
    "/api/flags",
    {
      schema: {
        operationId: "createFlag",
        summary: "Create a feature flag",
        errors: ["CONFLICT"],
        body: CreateFlagBody,
        response: { 201: Flag },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req, reply) =>
      reply.code(201).send(await svc.createFlag(deps, projectOf(req), req.body, actorOf(req))),
  );

  app.get(
    "/api/flags/:key",
    {
      schema: {
        operationId: "getFlag",
        summary: "Get a feature flag",
        params: FlagKeyParams,
        response: { 200: Flag },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => svc.getFlag(deps, projectOf(req), req.params.key),
  );

  app.patch(
    "/api/flags/:key",
    {
      schema: {
        operationId: "updateFlag",
        summary: "Change a feature flag (any field but key); enabled: false is the kill switch",
        params: FlagKeyParams,
        body: PatchFlagBody,
        response: { 200: Flag },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) => svc.updateFlag(deps, projectOf(req), req.params.key, req.body, actorOf(req)),
  );

  app.delete(
    "/api/flags/:key",
    {
      schema: {
        operationId: "deleteFlag",
        summary: "Delete a feature flag (its history is kept)",
        params: FlagKeyParams,
        response: { 200: Deleted },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) => svc.deleteFlag(deps, projectOf(req), req.params.key, actorOf(req)),
  );

  app.post(
    "/api/flags/:key/evaluate",
    {
      schema: {
        operationId: "evaluateFlag",
        summary: "What an SDK with these attributes gets for the flag, and which rule decided",
        params: FlagKeyParams,
        body: EvaluateBody,
        response: { 200: Evaluation },
        tags,
      },
      bodyLimit: MAX_EVAL_BODY_BYTES,
      preHandler: app.requireProject("read"),
    },
    async (req) => svc.evaluateFlag(deps, projectOf(req), req.params.key, req.body.attributes),
  );

  app.get(
    "/api/flags/:key/history",
    {
      schema: {
        operationId: "getFlagHistory",
        summary: "Every change of the flag: who, when, before and after (newest first)",
        params: FlagKeyParams,
        response: { 200: Type.Array(HistoryEntry) },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => svc.flagHistory(deps, projectOf(req), req.params.key),
  );

  app.post(
    "/api/flags/:key/rules/:ruleId/ship",
    {
      schema: {
        operationId: "shipFlagRule",
        summary: "Turn an experiment rule into a force rule serving the winner (or the named variant)",
        errors: ["CONFLICT"],
        params: RuleParams,
        body: ShipBody,
        response: { 200: Flag },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) =>
      svc.shipRule(deps, projectOf(req), req.params.key, req.params.ruleId, req.body?.variant, actorOf(req)),
  );

  app.get(
    "/api/flag-settings",
    {
      schema: {
        operationId: "getFlagSettings",
        summary: "How the project's SDKs may get flags",
        response: { 200: FlagSettings },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => svc.getFlagSettings(deps, projectOf(req)),
  );

  app.put(
    "/api/flag-settings",
    {
      schema: {
        operationId: "putFlagSettings",
        summary: "Require remote evaluation (no client sees the rules) or allow the payload",
        body: PutFlagSettingsBody,
        response: { 200: FlagSettings },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) => svc.putFlagSettings(deps, projectOf(req), req.body),
  );
};
