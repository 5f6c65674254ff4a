import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { createLimit } from "../../platform/rate-limit.js";
import { getJourney } from "./journey.js";
import { listLeads } from "./lead-list.js";
import { linkWithTraits, stitchFromSender } from "./links.js";
import { getLeadProfile, propertyFilters } from "./profile.js";
import {
  Journey,
  JourneyQuery,
  LeadList,
  LeadListQuery,
  LeadParams,
  LeadProfile,
  LinkBody,
  LinkResult,
  StitchBody,
  StitchResult,
} from "./schema.js";
import { bodyProjectKey, projectOf, senderOf } from "../../platform/auth/plugin.js";
import { stateOf } from "../../platform/deps.js";
import { LEAD_ANALYTICS } from "./lead-analytics.js";

const tags = ["identity"];

export const identityRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    "/api/identity",
    {
      schema: {
        operationId: "getVisitorJourney",
        summary: "A visitor's journey: events, lead and attribution",
        querystring: JourneyQuery,
        response: { 200: Journey },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => getJourney(app.db, projectOf(req), req.query.visitorId),
  );

  app.get(
    "/api/leads",
    {
      schema: {
        summary: "Leads, newest first; search by lead id or part of the email; cursor pagination",
        querystring: LeadListQuery,
        response: { 200: LeadList },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) =>
      listLeads(app.deps, projectOf(req), {
        ...req.query,
        where: propertyFilters(req.query as Record<string, unknown>),
        conditions: stateOf(app.deps, LEAD_ANALYTICS).parseFilter(req.query.filter),
      }),
  );

  app.get(
    "/api/leads/:id",
    {
      schema: {
        operationId: "getLead",
        summary: "A lead's profile: properties, visitors, first touch, conversions and revenue",
        params: LeadParams,
        response: { 200: LeadProfile },
        tags,
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => getLeadProfile(app.deps, projectOf(req), req.params.id),
  );

  app.post(
    "/api/identity",
    {
      schema: {
        operationId: "linkVisitor",
        summary: "Link a visitor to a lead (server-side stitch)",
        errors: ["CONFLICT"],
        body: LinkBody,
        response: { 200: LinkResult },
        tags,
      },
      preHandler: app.requireProject("write"),
    },
    async (req) => linkWithTraits(app.deps, projectOf(req), req.body),
  );

  // Public (browser snippet): the project's key in the body; the write limit per public key and
  // address, or per secret key (requireProjectKey).
  const stitchLimit = createLimit(app, { name: "stitch", max: app.config.rateLimits.writes });
  // Preflight of a cross-origin JSON stitch: answered here so it carries this route's open CORS.
  app.options(
    "/api/identity/stitch",
    { schema: { hide: true }, config: { publicCors: true } },
    async (_req, reply) => reply.code(204).send(),
  );
  app.post(
    "/api/identity/stitch",
    {
      schema: {
        operationId: "stitchVisitor",
        summary: "Stitch a visitor to the lead with this email (public; projectKey in the body)",
        errors: ["UNAUTHORIZED", "CONFLICT", "RATE_LIMITED"],
        body: StitchBody,
        response: { 200: StitchResult },
        tags,
      },
      config: { publicCors: true, allowTextPlain: true },
      preHandler: app.requireProjectKey(bodyProjectKey, stitchLimit),
    },
    async (req) => stitchFromSender(app.deps, projectOf(req), req.body, senderOf(req)),
  );
};
