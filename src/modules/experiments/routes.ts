import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import { AppError } from "../../platform/errors.js";
import type { ActiveCache } from "./active.js";
import {
  ActiveExperiment,
  CreateExperimentBody,
  Experiment,
  IdParam,
  KeyQuery,
  ListQuery,
  PatchExperimentBody,
  WeightsHistory,
} from "./schema.js";
import { createExperiment, getExperiment, listExperiments, updateExperiment } from "./service.js";
import { snippetBundle } from "./snippet-bundle.js";
import { weightsHistory } from "./weights-history.js";
import { projectOf } from "../../platform/auth/plugin.js";

const tags = ["experiments"];
const ACTIVE_MAX_AGE = 5;
const SNIPPET_MAX_AGE = 300;

/** Strong validator match per RFC 9110 (a list or `*`). */
function notModified(req: FastifyRequest, etag: string): boolean {
  const inm = req.headers["if-none-match"];
  if (!inm) return false;
  return inm === "*" || inm.split(",").some((t) => t.trim().replace(/^W\//, "") === etag);
}

function sendCached(req: FastifyRequest, reply: FastifyReply, etag: string, maxAge: number) {
  reply.header("cache-control", `public, max-age=${maxAge}`).header("etag", etag);
  if (notModified(req, etag)) {
    reply.code(304).send();
    return true;
  }
  return false;
}

export const experimentRoutes: FastifyPluginAsyncTypebox<{
  cache: ActiveCache;
  /** After a committed change: drops the cached active list and tells other modules (flags). */
  changed: (projectId: string) => void;
}> = async (app, { cache, changed }) => {
  app.get(
    "/api/experiments",
    {
      schema: {
        operationId: "listExperiments",
        summary: "List experiments, optionally by status",
        querystring: ListQuery,
        response: { 200: Type.Array(Experiment) },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => listExperiments(app.db, projectOf(req), req.query.status),
  );

  app.post(
    "/api/experiments",
    {
      schema: {
        operationId: "createExperiment",
        summary: "Create an experiment (status draft)",
        body: CreateExperimentBody,
        response: { 201: Experiment },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req, reply) => reply.code(201).send(await createExperiment(app.db, projectOf(req), req.body)),
  );

  app.patch(
    "/api/experiments",
    {
      schema: {
        operationId: "updateExperiment",
        summary: "Change an experiment or move it to another status",
        errors: ["CONFLICT", "INVALID_TRANSITION"],
        body: PatchExperimentBody,
        response: { 200: Experiment },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) => updateExperiment(app.db, projectOf(req), req.body, changed),
  );

  app.get(
    "/api/experiments/active",
    {
      schema: {
        operationId: "listActiveExperiments",
        summary: "Running experiments with their variants, for the browser snippet (public)",
        errors: ["UNAUTHORIZED"],
        querystring: KeyQuery,
        response: { 200: Type.Array(ActiveExperiment) },
        tags,
      },
      config: { publicCors: true },
    },
    async (req, reply) => {
      const project = await cache.resolveKey(req.query.key);
      if (!project) throw new AppError("UNAUTHORIZED", "unknown project key");
      const { body, etag } = await cache.active(project.id);
      if (sendCached(req, reply, etag, ACTIVE_MAX_AGE)) return reply;
      // Pre-serialized JSON: strings bypass the response serializer.
      return reply.type("application/json; charset=utf-8").send(body as never);
    },
  );

  app.get(
    "/api/experiments/:id",
    {
      schema: {
        operationId: "getExperiment",
        summary: "Get an experiment with its results",
        params: IdParam,
        response: { 200: Experiment },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => getExperiment(app.db, projectOf(req), req.params.id),
  );

  app.get(
    "/api/experiments/:id/weights",
    {
      schema: {
        operationId: "getExperimentWeights",
        summary: "A bandit's traffic allocation over time",
        params: IdParam,
        response: { 200: WeightsHistory },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => weightsHistory(app.db, projectOf(req), req.params.id),
  );

  app.get(
    "/api/svc-js",
    {
      schema: {
        operationId: "getSnippetScript",
        summary: "The browser snippet script for a project (public)",
        errors: ["UNAUTHORIZED"],
        querystring: KeyQuery,
        tags: ["snippet"],
      },
      config: { publicCors: true },
    },
    async (req, reply) => {
      if (!(await cache.resolveKey(req.query.key))) throw new AppError("UNAUTHORIZED", "unknown project key");
      const bundle = await snippetBundle();
      if (sendCached(req, reply, bundle.etag, SNIPPET_MAX_AGE)) return reply;
      return reply.type("application/javascript; charset=utf-8").send(bundle.code);
    },
  );
};
