import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from "fastify";
import fp from "fastify-plugin";
import { AppError } from "../errors.js";
import { ingestLimitKey } from "../ingest-limits.js";
import { refuseCrossSite } from "./cross-site.js";
import type { Principal, PrincipalResolver, ProjectRef, SessionPrincipal } from "./principal.js";
import { SESSION_COOKIE, verifySession } from "./session.js";

export type Access = "read" | "write";

/** How a route authenticates; the OpenAPI document derives each operation's `security` from it. */
export type AuthKind = "project" | "session" | "admin";
const authKinds = new WeakMap<object, AuthKind>();
function tagged<F extends object>(kind: AuthKind, fn: F): F {
  authKinds.set(fn, kind);
  return fn;
}
/** The kind of a hook returned by `requireProject`/`requireSession`/`requireAdmin`, else undefined. */
export const authKindOf = (hook: unknown): AuthKind | undefined =>
  typeof hook === "function" ? authKinds.get(hook) : undefined;

declare module "fastify" {
  interface FastifyInstance {
    /**
     * Session or project API key; sets `req.principal` with the project acted on (`projectOf(req)`);
     * applies the read/write limit. `adminSession`: a session must be a workspace admin's (members 403).
     */
    requireProject(access: Access, opts?: { adminSession?: boolean }): preHandlerAsyncHookHandler;
    /** Signed-in workspace admin (API keys and members get 403). */
    requireAdmin(): preHandlerAsyncHookHandler;
    /** Any signed-in user. */
    requireSession(): preHandlerAsyncHookHandler;
    /**
     * Public routes (the snippet's): the project key the body carries, public or secret, with one
     * answer for an unknown key; sets `req.principal` and then runs `limit` if given, counted per
     * secret key, or per public key and client address (`ingestLimitKey`).
     */
    requireBodyProjectKey(limit?: preHandlerAsyncHookHandler | null): preHandlerAsyncHookHandler;
    principalResolver: PrincipalResolver;
    sessionKey: Uint8Array;
    /** The signed-in user of the request's session cookie while that session stands, else null (no error). */
    sessionOf(req: FastifyRequest): Promise<SessionPrincipal | null>;
  }
  interface FastifyContextConfig {
    /** A GET that changes state (GET /api/sync/run): refused cross-site on a cookie session, like a POST. */
    changesState?: boolean;
  }
  interface FastifyRequest {
    /** The caller (see platform/auth/principal.ts); its `project` is what the request acts on. */
    principal: Principal;
    /** Set once the caller is known; the rate limiter keys on it. */
    rateLimitKey?: string;
  }
}

export interface AuthOptions {
  resolver: PrincipalResolver;
  sessionKey: Uint8Array;
  /** Limit handlers by access, applied after authentication (keyed on `req.rateLimitKey`). */
  limits: Record<Access, preHandlerAsyncHookHandler | null>;
}

/** Reads `x-api-key` or `Authorization: Bearer` with the given prefix. */
export function bearerOrApiKey(req: FastifyRequest, prefix: string): string | undefined {
  const header = req.headers["x-api-key"];
  if (typeof header === "string" && header.startsWith(prefix)) return header;
  const auth = req.headers.authorization;
  if (typeof auth === "string" && /^bearer /i.test(auth)) {
    const token = auth.slice(7).trim();
    if (token.startsWith(prefix)) return token;
  }
  return undefined;
}

/** The project a request acts on; only for routes guarded by `requireProject` or a public key. */
export function projectOf(req: FastifyRequest): ProjectRef {
  const project = req.principal?.project;
  if (!project) throw new Error(`${req.method} ${req.url}: the route has no project guard`);
  return project;
}

export const authPlugin = fp<AuthOptions>(async (app, opts) => {
  app.decorate("principalResolver", opts.resolver);
  app.decorate("sessionKey", opts.sessionKey);
  app.decorateRequest("principal", null as never);

  async function sessionOf(req: FastifyRequest): Promise<SessionPrincipal | null> {
    const token = req.cookies?.[SESSION_COOKIE];
    const claims = token ? await verifySession(opts.sessionKey, token) : null;
    return claims ? opts.resolver.resolveSession(claims) : null;
  }
  app.decorate("sessionOf", sessionOf);

  async function authenticate(req: FastifyRequest): Promise<Principal> {
    const key = bearerOrApiKey(req, "svc_key_");
    if (key) {
      const p = await opts.resolver.resolveApiKey(key);
      if (!p) throw new AppError("UNAUTHORIZED", "invalid API key");
      return p;
    }
    if (req.headers["x-api-key"] || req.headers.authorization) {
      throw new AppError("UNAUTHORIZED", "invalid credentials");
    }
    if (req.cookies?.[SESSION_COOKIE]) {
      const p = await sessionOf(req);
      if (!p) throw new AppError("UNAUTHORIZED", "session expired or invalid");
      refuseCrossSite(req);
      return p;
    }
    throw new AppError(
      "UNAUTHORIZED",
      "missing credentials: send x-api-key, Authorization: Bearer, or sign in",
    );
  }

  async function runLimit(access: Access, req: FastifyRequest, reply: FastifyReply) {
    const limit = opts.limits[access];
    if (limit) await limit.call(app, req, reply);
  }

  app.decorate("requireProject", (access: Access, guard: { adminSession?: boolean } = {}) => {
    return tagged("project", async function requireProject(req: FastifyRequest, reply: FastifyReply) {
      const principal = await authenticate(req);
      req.principal = principal;
      if (principal.kind === "apiKey") {
        req.rateLimitKey = `key:${principal.keyId}`;
      } else if (principal.kind === "session") {
        if (guard.adminSession && principal.role !== "admin")
          throw new AppError("FORBIDDEN", "this endpoint needs a project API key or a workspace admin");
        const wanted = req.headers["x-project-id"];
        const project = await opts.resolver.resolveSessionProject(
          principal.workspaceId,
          typeof wanted === "string" ? wanted : undefined,
        );
        if (!project) throw new AppError("NOT_FOUND", "project not found");
        req.principal = { ...principal, project };
        req.rateLimitKey = `user:${principal.userId}:${project.id}`;
      }
      await runLimit(access, req, reply);
    });
  });

  app.decorate("requireSession", () => {
    return tagged("session", async function requireSession(req: FastifyRequest, reply: FastifyReply) {
      const principal = await authenticate(req);
      if (principal.kind !== "session")
        throw new AppError("FORBIDDEN", "this endpoint needs a signed-in user");
      req.principal = principal;
      req.rateLimitKey = `user:${principal.userId}`;
      await runLimit(req.method === "GET" ? "read" : "write", req, reply);
    });
  });

  app.decorate("requireBodyProjectKey", (limit?: preHandlerAsyncHookHandler | null) => {
    return async function requireBodyProjectKey(req: FastifyRequest, reply: FastifyReply) {
      const key = (req.body as { projectKey?: unknown } | undefined)?.projectKey;
      const project = typeof key === "string" ? await opts.resolver.resolvePublicKey(key) : null;
      if (!project) throw new AppError("UNAUTHORIZED", "unknown projectKey");
      req.principal = { kind: "projectKey", workspaceId: project.workspaceId, project };
      req.rateLimitKey = ingestLimitKey({ key: key as string, address: req.ip });
      if (limit) await limit.call(app, req, reply);
    };
  });

  app.decorate("requireAdmin", () => {
    return tagged("admin", async function requireAdmin(req: FastifyRequest, reply: FastifyReply) {
      const principal = await authenticate(req);
      if (principal.kind !== "session" || principal.role !== "admin") {
        throw new AppError("FORBIDDEN", "this endpoint needs a workspace admin");
      }
      req.principal = principal;
      req.rateLimitKey = `user:${principal.userId}`;
      await runLimit(req.method === "GET" ? "read" : "write", req, reply);
    });
  });
});
