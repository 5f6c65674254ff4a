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
    { schema: { body: LoginBody, response: { 200: Me }, tags: ["auth"] } },
    async (req, reply) => {
      const user = await svc.authenticateUser(app.db, req.body.email, req.body.password);
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

  app.post("/api/auth/logout", { schema: { tags: ["auth"] } }, async (_req, reply) => {
    reply.clearCookie(SESSION_COOKIE, { path: "/" });
    return { ok: true };
  });

  app.get(
    "/api/auth/me",
    { schema: { response: { 200: Me }, tags: ["auth"] }, preHandler: app.requireSession() },
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
    { schema: { response: { 200: Workspace }, tags }, preHandler: app.requireSession() },
    async (req) => svc.getWorkspace(app.db, req.principal.workspaceId),
  );

  app.patch(
    "/api/workspace",
    {
      schema: { body: PatchWorkspaceBody, response: { 200: Workspace }, tags },
      preHandler: app.requireAdmin(),
    },
    async (req) => svc.updateWorkspace(app.db, req.principal.workspaceId, req.body),
  );

  app.get(
    "/api/workspace/users",
    { schema: { response: { 200: Type.Array(User) }, tags }, preHandler: app.requireAdmin() },
    async (req) => svc.listUsers(app.db, req.principal.workspaceId),
  );

  app.post(
    "/api/workspace/users",
    { schema: { body: CreateUserBody, response: { 201: User }, tags }, preHandler: app.requireAdmin() },
    async (req, reply) =>
      reply.code(201).send(await svc.createUser(app.db, req.principal.workspaceId, req.body)),
  );

  app.delete(
    "/api/workspace/users/:id",
    { schema: { params: IdParam, response: { 200: Deleted }, tags }, preHandler: app.requireAdmin() },
    async (req) => {
      const p = req.principal as Extract<typeof req.principal, { kind: "session" }>;
      return svc.deleteUser(app.db, p.workspaceId, req.params.id, p.userId);
    },
  );

  app.get(
    "/api/projects",
    { schema: { response: { 200: Type.Array(Project) }, tags }, preHandler: app.requireAdmin() },
    async (req) => svc.listProjects(app.db, req.principal.workspaceId),
  );

  app.post(
    "/api/projects",
    { schema: { body: CreateProjectBody, response: { 201: Project }, tags }, preHandler: app.requireAdmin() },
    async (req, reply) =>
      reply.code(201).send(await svc.createProject(app.db, req.principal.workspaceId, req.body.name)),
  );

  app.get(
    "/api/projects/:id/keys",
    {
      schema: { params: IdParam, response: { 200: Type.Array(ProjectKey) }, tags },
      preHandler: app.requireAdmin(),
    },
    async (req) => svc.listProjectKeys(app.db, req.principal.workspaceId, req.params.id),
  );

  app.post(
    "/api/projects/:id/keys",
    {
      schema: { params: IdParam, body: CreateKeyBody, response: { 201: CreatedProjectKey }, tags },
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
      schema: { params: ProjectKeyParams, response: { 200: Deleted }, tags },
      preHandler: app.requireAdmin(),
    },
    async (req) => svc.deleteProjectKey(app.db, req.principal.workspaceId, req.params.id, req.params.keyId),
  );
};
