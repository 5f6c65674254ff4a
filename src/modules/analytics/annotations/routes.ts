import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyRequest } from "fastify";
import { projectOf } from "../../../platform/auth/plugin.js";
import {
  Annotation,
  AnnotationListQuery,
  AnnotationParams,
  CreateAnnotationBody,
  PatchAnnotationBody,
} from "./schema.js";
import {
  type Author,
  createAnnotation,
  deleteAnnotation,
  getAnnotation,
  listAnnotations,
  updateAnnotation,
} from "./annotations.js";

const tags = ["annotations"];

/** Who made it: the API key's id or the signed-in user's id (never a secret). */
function author(req: FastifyRequest): Author {
  const p = req.principal;
  if (p?.kind === "session") return { kind: "user", id: p.userId };
  if (p?.kind === "apiKey") return { kind: "apiKey", id: p.keyId };
  throw new Error(`annotation by ${p?.kind ?? "nobody"}`);
}

/** /api/annotations: dated notes on the project's time charts. */
export const annotationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    "/api/annotations",
    {
      schema: {
        operationId: "listAnnotations",
        summary: "The project's annotations, newest date first; with from/to, those overlapping the days",
        querystring: AnnotationListQuery,
        response: { 200: Type.Array(Annotation) },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => listAnnotations(app.db, projectOf(req), req.query),
  );

  app.post(
    "/api/annotations",
    {
      schema: {
        operationId: "createAnnotation",
        summary: "Note what happened on a day (or over days): shown on every time chart",
        body: CreateAnnotationBody,
        response: { 201: Annotation },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req, reply) =>
      reply.code(201).send(await createAnnotation(app.db, projectOf(req), author(req), req.body)),
  );

  app.get(
    "/api/annotations/:id",
    {
      schema: {
        operationId: "getAnnotation",
        summary: "An annotation",
        params: AnnotationParams,
        response: { 200: Annotation },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => getAnnotation(app.db, projectOf(req), req.params.id),
  );

  app.patch(
    "/api/annotations/:id",
    {
      schema: {
        operationId: "updateAnnotation",
        summary: "Change an annotation's text or days",
        params: AnnotationParams,
        body: PatchAnnotationBody,
        response: { 200: Annotation },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) => updateAnnotation(app.db, projectOf(req), req.params.id, req.body),
  );

  app.delete(
    "/api/annotations/:id",
    {
      schema: {
        operationId: "deleteAnnotation",
        summary: "Delete an annotation",
        params: AnnotationParams,
        response: { 200: Type.Object({ id: Type.String(), deleted: Type.Literal(true) }) },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) => deleteAnnotation(app.db, projectOf(req), req.params.id),
  );
};
