import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { Belief, CreateBeliefBody, IdParam, UpdateConfidenceBody } from "./schema.js";
import * as svc from "./service.js";
import { projectOf } from "../../platform/auth/plugin.js";

const tags = ["beliefs"];

export const beliefRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    "/api/beliefs",
    {
      schema: {
        operationId: "listBeliefs",
        summary: "List beliefs",
        response: { 200: Type.Array(Belief) },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => svc.listBeliefs(app.db, projectOf(req)),
  );
  app.get(
    "/api/beliefs/:id",
    {
      schema: {
        operationId: "getBelief",
        summary: "Get a belief with its evidence",
        params: IdParam,
        response: { 200: Belief },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => svc.getBelief(app.db, projectOf(req), req.params.id),
  );
  app.post(
    "/api/beliefs",
    {
      schema: {
        operationId: "createBelief",
        summary: "Create a belief",
        body: CreateBeliefBody,
        response: { 201: Belief },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req, reply) => reply.code(201).send(await svc.createBelief(app.db, projectOf(req), req.body)),
  );
  app.post(
    "/api/beliefs/:id/update-confidence",
    {
      schema: {
        operationId: "updateBeliefConfidence",
        summary: "Add evidence and update a belief's confidence",
        params: IdParam,
        body: UpdateConfidenceBody,
        response: { 200: Belief },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) => svc.appendEvidence(app.db, projectOf(req), req.params.id, req.body),
  );
};
