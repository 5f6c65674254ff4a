import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyRequest } from "fastify";
import { projectOf } from "../../platform/auth/plugin.js";
import { erasePerson, listErasures } from "./service.js";
import { EraseVisitorQuery, Erasure, ErasureList, ErasureListQuery, LeadParams } from "./schema.js";

const tags = ["identity"]; // documented beside the identity it erases

/** Who asked, as recorded: the API key's id or the signed-in user's id (never a secret). */
function requester(req: FastifyRequest): string {
  const p = req.principal;
  if (p?.kind === "session") return `user:${p.userId}`;
  if (p?.kind === "apiKey") return `apiKey:${p.keyId}`;
  throw new Error(`erasure by ${p?.kind ?? "nobody"}`);
}

/** Erasure: a lead or a visitor, by a project's secret key or a workspace admin; and its record. */
export const erasureRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const guard = app.requireProject("write", { adminSession: true });

  app.delete(
    "/api/leads/:id",
    {
      schema: {
        operationId: "eraseLead",
        summary:
          "Erase a lead: its visitors' events, sessions, journeys, links, properties, conversions and exposures; rollups adjusted; idempotent",
        params: LeadParams,
        errors: ["NOT_FOUND"],
        response: { 200: Erasure },
        tags,
      },
      preHandler: guard,
    },
    async (req) => erasePerson(app.deps, projectOf(req), "lead", req.params.id, requester(req)),
  );

  app.delete(
    "/api/identity",
    {
      schema: {
        operationId: "eraseVisitor",
        summary:
          "Erase a visitor: its events, sessions, journey, link and exposures (a lead it was linked to stays); rollups adjusted; idempotent",
        querystring: EraseVisitorQuery,
        errors: ["NOT_FOUND"],
        response: { 200: Erasure },
        tags,
      },
      preHandler: guard,
    },
    async (req) => erasePerson(app.deps, projectOf(req), "visitor", req.query.visitorId, requester(req)),
  );

  app.get(
    "/api/erasures",
    {
      schema: {
        operationId: "listErasures",
        summary: "The project's erasures, newest first: who asked, when, how much went (no personal data)",
        querystring: ErasureListQuery,
        response: { 200: ErasureList },
        tags,
      },
      preHandler: app.requireProject("read", { adminSession: true }),
    },
    async (req) => listErasures(app.db, projectOf(req), req.query),
  );
};
