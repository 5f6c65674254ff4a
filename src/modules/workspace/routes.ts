import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { SessionPrincipal } from "../../platform/auth/principal.js";
import { SESSION_COOKIE } from "../../platform/auth/session.js";
import {
  ChangePasswordBody,
  CreateKeyBody,
  CreateProjectBody,
  CreateUserBody,
  CreatedProjectKey,
  Deleted,
  IdParam,
  LoginBody,
  Me,
  PasswordChanged,
  PatchWorkspaceBody,
  Project,
  ProjectKey,
  ProjectKeyParams,
  SessionsEnded,
  User,
  Workspace,
} from "./schema.js";
import * as svc from "./service.js";
import { setSessionCookie } from "./session-cookie.js";

const tags = ["workspace"];

export const workspaceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    "/api/auth/login",
    {
      schema: {
        operationId: "signIn",
        summary: "Sign in with email and password (sets the session cookie)",
        errors: ["UNAUTHORIZED", "RATE_LIMITED"],
        body: LoginBody,
        response: { 200: Me },
        tags: ["auth"],
      },
    },
    async (req, reply) => {
      const { email, password } = req.body;
      await app.loginThrottle.attempt(req.ip, email);
      const user = await svc.authenticateUser(app.db, email, password);
      await app.loginThrottle.succeeded(req.ip, email);
      const session = await svc.startSession(app.db, user.id);
      await setSessionCookie(req, reply, app.sessionKey, session, user.id);
      return { user, workspace: await svc.getWorkspace(app.db, user.workspaceId) };
    },
  );

  app.post(
    "/api/auth/logout",
    {
      schema: {
        operationId: "signOut",
        summary: "Sign out: ends this session on every process and clears the cookie",
        tags: ["auth"],
      },
    },
    async (req, reply) => {
      const session = await app.sessionOf(req);
      if (session) await svc.endSession(app.db, session.sessionId);
      reply.clearCookie(SESSION_COOKIE, { path: "/" });
      return { ok: true };
    },
  );

  app.post(
    "/api/auth/password",
    {
      schema: {
        operationId: "changePassword",
        summary: "Change your password (needs the current one); ends your other sessions",
        errors: ["UNAUTHORIZED", "RATE_LIMITED"],
        body: ChangePasswordBody,
        response: { 200: PasswordChanged },
        tags: ["auth"],
      },
      preHandler: app.requireSession(),
    },
    async (req) => {
      const p = req.principal as SessionPrincipal;
      // The current password is a password guess like a sign-in's: a stolen session must not try it freely.
      await app.loginThrottle.attempt(req.ip, p.email);
      const { currentPassword, newPassword } = req.body;
      const endedSessions = await svc.changePassword(app.db, p, currentPassword, newPassword);
      await app.loginThrottle.succeeded(req.ip, p.email);
      return { changed: true as const, endedSessions };
    },
  );

  app.get(
    "/api/auth/me",
    {
      schema: {
        operationId: "getCurrentUser",
        summary: "The signed-in user and their workspace",
        response: { 200: Me },
        tags: ["auth"],
      },
      preHandler: app.requireSession(),
    },
    async (req) => {
      const p = req.principal as SessionPrincipal;
      return {
        user: await svc.getUser(app.db, p.userId),
        workspace: await svc.getWorkspace(app.db, p.workspaceId),
      };
    },
  );

  app.get(
    "/api/workspace",
    {
      schema: {
        operationId: "getWorkspace",
        summary: "The workspace of the signed-in user",
        response: { 200: Workspace },
        tags,
      },
      preHandler: app.requireSession(),
    },
    async (req) => svc.getWorkspace(app.db, req.principal.workspaceId),
  );

  app.patch(
    "/api/workspace",
    {
      schema: {
        operationId: "updateWorkspace",
        summary: "Rename the workspace (its plan tier is the operator's: `lift set-tier`)",
        errors: ["FORBIDDEN"],
        body: PatchWorkspaceBody,
        response: { 200: Workspace },
        tags,
      },
      preHandler: app.requireAdmin(),
    },
    async (req) => svc.updateWorkspace(app.db, req.principal.workspaceId, req.body),
  );

  app.delete(
    "/api/workspace/users/:id/sessions",
    {
      schema: {
        operationId: "endUserSessions",
        summary: "End every session of a user of the workspace (they must sign in again)",
        params: IdParam,
        response: { 200: SessionsEnded },
        tags,
      },
      preHandler: app.requireAdmin(),
    },
    async (req) => svc.endSessionsOfMember(app.db, req.principal.workspaceId, req.params.id),
  );

  app.get(
    "/api/workspace/users",
    {
      schema: {
        operationId: "listUsers",
        summary: "List the workspace's users",
        response: { 200: Type.Array(User) },
        tags,
      },
      preHandler: app.requireAdmin(),
    },
    async (req) => svc.listUsers(app.db, req.principal.workspaceId),
  );

  app.post(
    "/api/workspace/users",
    {
      schema: {
        operationId: "createUser",
        summary: "Add a user to the workspace",
        errors: ["CONFLICT"],
        body: CreateUserBody,
        response: { 201: User },
        tags,
      },
      preHandler: app.requireAdmin(),
    },
    async (req, reply) =>
      reply.code(201).send(await svc.createUser(app.db, req.principal.workspaceId, req.body)),
  );

  app.delete(
    "/api/workspace/users/:id",
    {
      schema: {
        operationId: "deleteUser",
        summary: "Remove a user; their sessions end at once",
        errors: ["CONFLICT"],
        params: IdParam,
        response: { 200: Deleted },
        tags,
      },
      preHandler: app.requireAdmin(),
    },
    async (req) => {
      const p = req.principal as SessionPrincipal;
      return svc.deleteUser(app.db, p.workspaceId, req.params.id, p.userId);
    },
  );

  app.get(
    "/api/projects",
    {
      schema: {
        operationId: "listProjects",
        summary: "List the workspace's projects",
        response: { 200: Type.Array(Project) },
        tags,
      },
      preHandler: app.requireAdmin(),
    },
    async (req) => svc.listProjects(app.db, req.principal.workspaceId),
  );

  app.post(
    "/api/projects",
    {
      schema: {
        operationId: "createProject",
        summary: "Create a project with its public key",
        body: CreateProjectBody,
        response: { 201: Project },
        tags,
      },
      preHandler: app.requireAdmin(),
    },
    async (req, reply) =>
      reply.code(201).send(await svc.createProject(app.db, req.principal.workspaceId, req.body.name)),
  );

  app.get(
    "/api/projects/:id/keys",
    {
      schema: {
        operationId: "listProjectKeys",
        summary: "List a project's API keys (prefixes only)",
        params: IdParam,
        response: { 200: Type.Array(ProjectKey) },
        tags,
      },
      preHandler: app.requireAdmin(),
    },
    async (req) => svc.listProjectKeys(app.db, req.principal.workspaceId, req.params.id),
  );

  app.post(
    "/api/projects/:id/keys",
    {
      schema: {
        operationId: "createProjectKey",
        summary: "Create a project API key (the raw key is returned once)",
        params: IdParam,
        body: CreateKeyBody,
        response: { 201: CreatedProjectKey },
        tags,
      },
      preHandler: app.requireAdmin(),
    },
    async (req, reply) =>
      reply
        .code(201)
        .send(await svc.createProjectKey(app.db, req.principal.workspaceId, req.params.id, req.body.name)),
  );

  app.delete(
    "/api/projects/:id/keys/:keyId",
    {
      schema: {
        operationId: "deleteProjectKey",
        summary: "Revoke a project API key; it fails at once",
        params: ProjectKeyParams,
        response: { 200: Deleted },
        tags,
      },
      preHandler: app.requireAdmin(),
    },
    async (req) => {
      const deleted = await svc.deleteProjectKey(
        app.db,
        req.principal.workspaceId,
        req.params.id,
        req.params.keyId,
      );
      app.principalResolver.forgetKeys();
      return deleted;
    },
  );
};
