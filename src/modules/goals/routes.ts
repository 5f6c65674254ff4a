import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import {
  ConversionGoal,
  CreateConversionGoalBody,
  PatchConversionGoalBody,
  CreateGoalBody,
  Deleted,
  Goal,
  IdQuery,
  PatchGoalBody,
} from "./schema.js";
import * as svc from "./service.js";
import { projectOf } from "../../platform/auth/plugin.js";

const tags = ["goals"];

export const goalRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    "/api/goals",
    {
      schema: {
        operationId: "listGoals",
        summary: "List goals with their current progress",
        response: { 200: Type.Array(Goal) },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => svc.listGoals(app.db, projectOf(req)),
  );
  app.post(
    "/api/goals",
    {
      schema: {
        operationId: "createGoal",
        summary: "Create a goal",
        body: CreateGoalBody,
        response: { 201: Goal },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req, reply) => reply.code(201).send(await svc.createGoal(app.deps, projectOf(req), req.body)),
  );
  app.patch(
    "/api/goals",
    {
      schema: {
        operationId: "updateGoal",
        summary: "Change a goal's target, deadline or status",
        body: PatchGoalBody,
        response: { 200: Goal },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) => svc.updateGoal(app.deps, projectOf(req), req.body),
  );
  app.delete(
    "/api/goals",
    {
      schema: {
        operationId: "deleteGoal",
        summary: "Delete a goal",
        querystring: IdQuery,
        response: { 200: Deleted },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) => svc.deleteGoal(app.db, projectOf(req), req.query.id),
  );

  app.get(
    "/api/conversion-goals",
    {
      schema: {
        operationId: "listConversionGoals",
        summary: "List conversion goals",
        response: { 200: Type.Array(ConversionGoal) },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => svc.listConversionGoals(app.db, projectOf(req)),
  );
  app.post(
    "/api/conversion-goals",
    {
      schema: {
        operationId: "createConversionGoal",
        summary: "Define which events count as a conversion",
        errors: ["CONFLICT"],
        body: CreateConversionGoalBody,
        response: { 201: ConversionGoal },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req, reply) =>
      reply.code(201).send(await svc.createConversionGoal(app.db, projectOf(req), req.body)),
  );
  app.patch(
    "/api/conversion-goals",
    {
      schema: {
        operationId: "updateConversionGoal",
        summary: "Change a conversion goal (name, event type, URL pattern, conditions)",
        errors: ["CONFLICT"],
        body: PatchConversionGoalBody,
        response: { 200: ConversionGoal },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) => svc.patchConversionGoal(app.db, projectOf(req), req.body),
  );
  app.delete(
    "/api/conversion-goals",
    {
      schema: {
        operationId: "deleteConversionGoal",
        summary: "Delete a conversion goal",
        querystring: IdQuery,
        response: { 200: Deleted },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) => svc.deleteConversionGoal(app.db, projectOf(req), req.query.id),
  );
};
