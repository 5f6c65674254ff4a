import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { SESSION_COOKIE, SESSION_TTL_SECONDS, signSession } from "../../platform/auth/session.js";
import {
  CreateKeyBody,
  CreateProjectBody,
  CreateUserBody,
  CreatedProjectKey,
  Deleted,
  IdParam,
  LoginBody,
  Me,
  PatchWorkspaceBody,
  Project,
  ProjectKey,
  ProjectKeyParams,
  User,
  Workspace,
} from "./schema.js";
import * as svc from "./service.js";

const tags = ["workspace"];

export const workspaceRoutes: FastifyPluginAsyncTypebox<{ secureCookies: boolean }> = async (app, opts) => {
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
      await app.loginThrottle.check(req.ip, email);
      let user: Awaited<ReturnType<typeof svc.authenticateUser>>;
      try {
        user = await svc.authenticateUser(app.db, email, password);
      } catch (err) {
        if ((err as { code?: string }).code === "UNAUTHORIZED") await app.loginThrottle.failed(req.ip, email);
        throw err;
      }
      await app.loginThrottle.succeeded(req.ip, email);
      const token = await signSession(app.sessionKey, user.id, user.workspaceId);
      reply.setCookie(SESSION_COOKIE, token, {
        httpOnly: true,
        sameSite: "lax",
        secure: opts.secureCookies,
        path: "/",
        maxAge: SESSION_TTL_SECONDS,
      });
      return { user, workspace: await svc.getWorkspace(app.db, user.workspaceId) };
    },
  );

  app.post(
    "/api/auth/logout",
    { schema: { operationId: "signOut", summary: "Sign out (clears the session cookie)", tags: ["auth"] } },
    async (_req, reply) => {
      reply.clearCookie(SESSION_COOKIE, { path: "/" });
      return { ok: true };
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
      const p = req.principal as Extract<typeof req.principal, { kind: "session" }>;
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
        summary: "Rename the workspace or change its plan tier",
        body: PatchWorkspaceBody,
        response: { 200: Workspace },
        tags,
      },
      preHandler: app.requireAdmin(),
    },
    async (req) => svc.updateWorkspace(app.db, req.principal.workspaceId, req.body),
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
      const p = req.principal as Extract<typeof req.principal, { kind: "session" }>;
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
