import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { projectOf } from "../../../platform/auth/plugin.js";
import {
  Cohort,
  CohortCount,
  CohortMembers,
  CohortParams,
  CreateCohortBody,
  MembersQuery,
  PatchCohortBody,
  PreviewBody,
} from "./schema.js";
import { createCohort, deleteCohort, getCohort, listCohorts, updateCohort } from "./cohorts.js";
import { cohortCountTask, cohortMemberPageTask, cohortPreviewTask } from "../read-tasks.js";

const tags = ["cohorts"];

/** /api/cohorts: saved definitions of people, their live count and members. */
export const cohortRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    "/api/cohorts",
    {
      schema: {
        operationId: "listCohorts",
        summary: "The project's cohorts, newest first",
        response: { 200: Type.Array(Cohort) },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => listCohorts(app.db, projectOf(req)),
  );

  app.post(
    "/api/cohorts",
    {
      schema: {
        operationId: "createCohort",
        summary: "Save a cohort: conditions on people (events done or not in a window, lead properties)",
        body: CreateCohortBody,
        response: { 201: Cohort },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req, reply) => reply.code(201).send(await createCohort(app.db, projectOf(req), req.body)),
  );

  app.post(
    "/api/cohorts/preview",
    {
      schema: {
        operationId: "previewCohort",
        summary: "Count the people an unsaved cohort definition holds now",
        body: PreviewBody,
        response: { 200: CohortCount },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => app.deps.reads.run(cohortPreviewTask, projectOf(req), req.body.definition),
  );

  app.get(
    "/api/cohorts/:id",
    {
      schema: {
        operationId: "getCohort",
        summary: "A cohort",
        params: CohortParams,
        response: { 200: Cohort },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => getCohort(app.db, projectOf(req), req.params.id),
  );

  app.patch(
    "/api/cohorts/:id",
    {
      schema: {
        operationId: "updateCohort",
        summary: "Rename a cohort or change its definition",
        params: CohortParams,
        body: PatchCohortBody,
        response: { 200: Cohort },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) => updateCohort(app.db, projectOf(req), req.params.id, req.body),
  );

  app.delete(
    "/api/cohorts/:id",
    {
      schema: {
        operationId: "deleteCohort",
        summary: "Delete a cohort",
        params: CohortParams,
        response: { 200: Type.Object({ id: Type.String(), deleted: Type.Literal(true) }) },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) => deleteCohort(app.db, projectOf(req), req.params.id),
  );

  app.get(
    "/api/cohorts/:id/count",
    {
      schema: {
        operationId: "countCohort",
        summary: "How many people the cohort holds now (computed live)",
        params: CohortParams,
        response: { 200: CohortCount },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => app.deps.reads.run(cohortCountTask, projectOf(req), req.params.id),
  );

  app.get(
    "/api/cohorts/:id/members",
    {
      schema: {
        operationId: "listCohortMembers",
        summary: "The cohort's people now: leads and anonymous visitors, a page at a time",
        params: CohortParams,
        querystring: MembersQuery,
        response: { 200: CohortMembers },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) =>
      app.deps.reads.run(cohortMemberPageTask, projectOf(req), { id: req.params.id, ...req.query }),
  );
};
