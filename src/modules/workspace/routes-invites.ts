import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { SessionPrincipal } from "../../platform/auth/principal.js";
import { refuseCrossSite } from "../../platform/auth/cross-site.js";
import { createLimit } from "../../platform/rate-limit.js";
import {
  AcceptInviteBody,
  CreateInviteBody,
  CreatedInvite,
  Deleted,
  IdParam,
  Invite,
  InvitePreview,
  InviteTokenParams,
  Me,
} from "./schema.js";
import * as invites from "./invites.js";
import * as svc from "./service.js";
import { setSessionCookie } from "./session-cookie.js";

const tags = ["workspace"];

/**
 * Invitations: admins invite and revoke; the invited open their link (public: the token is the
 * credential), set their own password and are signed in.
 */
export const inviteRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    "/api/workspace/invites",
    {
      schema: {
        operationId: "listInvites",
        summary: "The workspace's invitations, newest first (pending, accepted, expired, revoked)",
        response: { 200: Type.Array(Invite) },
        tags,
      },
      preHandler: app.requireAdmin(),
    },
    async (req) => invites.listInvites(app.db, req.principal.workspaceId),
  );

  app.post(
    "/api/workspace/invites",
    {
      schema: {
        operationId: "createInvite",
        summary: "Invite an email with a role: Lift mails a link to set a password (valid 7 days, once)",
        errors: ["CONFLICT"],
        body: CreateInviteBody,
        response: { 201: CreatedInvite },
        tags,
      },
      preHandler: app.requireAdmin(),
    },
    async (req, reply) => {
      const p = req.principal as SessionPrincipal;
      const admin = { workspaceId: p.workspaceId, userId: p.userId, email: p.email };
      return reply.code(201).send(await invites.createInvite(app.deps, admin, req.body));
    },
  );

  app.delete(
    "/api/workspace/invites/:id",
    {
      schema: {
        operationId: "revokeInvite",
        summary: "Revoke an invitation: its link stops working at once",
        errors: ["CONFLICT"],
        params: IdParam,
        response: { 200: Deleted },
        tags,
      },
      preHandler: app.requireAdmin(),
    },
    async (req) => invites.revokeInvite(app.db, req.principal.workspaceId, req.params.id),
  );

  // Public and unauthenticated: limited per address. The token (256 bits) cannot be guessed; the
  // limits bound the password hashing an anonymous caller can make Lift do.
  const readLimit = createLimit(app, {
    name: "invite-read",
    max: app.config.rateLimits.reads,
    key: (req) => req.ip,
  });
  const acceptLimit = createLimit(app, {
    name: "invite-accept",
    max: app.config.rateLimits.writes,
    key: (req) => req.ip,
  });

  app.get(
    "/api/invites/:token",
    {
      schema: {
        operationId: "getInvite",
        summary: "Who invited you to which workspace, as what (public: the link's token is the credential)",
        errors: ["NOT_FOUND", "RATE_LIMITED"],
        params: InviteTokenParams,
        response: { 200: InvitePreview },
        tags,
      },
      preHandler: readLimit ? [readLimit] : [],
    },
    async (req, reply) => {
      reply.header("cache-control", "no-store").header("referrer-policy", "no-referrer");
      return invites.previewInvite(app.db, req.params.token);
    },
  );

  app.post(
    "/api/invites/:token",
    {
      schema: {
        operationId: "acceptInvite",
        summary: "Accept an invitation: set your password; you are a user of the workspace, signed in",
        errors: ["NOT_FOUND", "CONFLICT", "FORBIDDEN", "RATE_LIMITED"],
        params: InviteTokenParams,
        body: AcceptInviteBody,
        response: { 201: Me },
        tags,
      },
      preHandler: acceptLimit ? [acceptLimit] : [],
    },
    async (req, reply) => {
      // Signing a browser in from another site's page would be a login CSRF.
      refuseCrossSite(req);
      const { user, session } = await invites.acceptInvite(app.db, req.params.token, req.body.password);
      await setSessionCookie(req, reply, app.sessionKey, session, user.id);
      reply.header("cache-control", "no-store");
      return reply.code(201).send({
        user: await svc.getUser(app.db, user.id),
        workspace: await svc.getWorkspace(app.db, user.workspace_id),
      });
    },
  );
};
