import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from "fastify";
import fp from "fastify-plugin";
import { AppError } from "../errors.js";
import { type IngestSender, ingestLimitKey } from "../ingest-limits.js";
import { refuseCrossSite } from "./cross-site.js";
import { KEY_PREFIX, MAX_KEY_LENGTH, isKeyOf, projectKeyKind } from "./keys.js";
import type {
  Principal,
  PrincipalResolver,
  ProjectRef,
  SessionPrincipal,
  TransactionalKeyLookup,
} from "./principal.js";
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
     * Public endpoints: the project key `source` reads from the request (the body's `projectKey`,
     * Segment's write key, the flag SDK's client key), public or secret; sets `req.principal`
     * (`kind: "projectKey"`, its `keyKind` and the key) and then runs `limit` if given, counted per
     * secret key, or per public key and client address (`ingestLimitKey`). The route places it
     * where the key can be read: `preHandler` for a key in a validated body, else `preValidation`.
     */
    requireProjectKey(
      source: KeySource,
      limit?: preHandlerAsyncHookHandler | null,
    ): preHandlerAsyncHookHandler;
    /**
     * The transactional API: a workspace's `svc_tx_…` key as `Authorization: Bearer` or
     * `X-Api-Key`, looked up by `lookup`; sets `req.principal` (`kind: "txKey"`). Usable from
     * `onRequest` (it reads headers only), so a bad body never hides a 401.
     */
    requireTransactionalKey(lookup: TransactionalKeyLookup): preHandlerAsyncHookHandler;
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

/** Where a public endpoint's project key is, and the 401 messages its callers get. */
export interface KeySource {
  /** The key the request carries; null or undefined when it carries none. */
  read(req: FastifyRequest): unknown;
  /** The 401 message for a request without a key (else `unknown`'s). */
  missing?: string;
  /** The 401 message for a key that names no project. */
  unknown: string;
  /**
   * Only the public key is taken (a key in a URL ends up in logs, proxies and browser history):
   * any other key is refused with this 401 message before a lookup.
   */
  publicOnly?: string;
}

/** The `projectKey` of a validated body (the snippet's endpoints: events, the stitch). */
export const bodyProjectKey: KeySource = {
  read: (req) => (req.body as { projectKey?: unknown } | undefined)?.projectKey,
  unknown: "unknown projectKey",
};

/** Reads `x-api-key` or `Authorization: Bearer` with the given prefix. */
function bearerOrApiKey(req: FastifyRequest, prefix: string): string | undefined {
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

/** The request's principal, of the kind the route's guard admits (a route without that guard throws). */
export function callerOf<K extends Principal["kind"]>(
  req: FastifyRequest,
  kind: K,
): Extract<Principal, { kind: K }> {
  const p = req.principal;
  if (p?.kind !== kind) throw new Error(`${req.method} ${req.url}: the route has no ${kind} guard`);
  return p as Extract<Principal, { kind: K }>;
}

/** Who sent a public endpoint's events: its project key and the client's address (budgets, limits). */
export function senderOf(req: FastifyRequest): IngestSender {
  const p = callerOf(req, "projectKey");
  return { key: p.key, keyKind: p.keyKind, address: req.ip };
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
    const key = bearerOrApiKey(req, KEY_PREFIX.secret);
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

  app.decorate("requireProjectKey", (source: KeySource, limit?: preHandlerAsyncHookHandler | null) => {
    return async function requireProjectKey(req: FastifyRequest, reply: FastifyReply) {
      const key = source.read(req);
      if (typeof key !== "string" || key === "")
        throw new AppError("UNAUTHORIZED", source.missing ?? source.unknown);
      if (source.publicOnly && !isKeyOf("public", key)) throw new AppError("UNAUTHORIZED", source.publicOnly);
      const project = key.length <= MAX_KEY_LENGTH ? await opts.resolver.resolvePublicKey(key) : null;
      if (!project) throw new AppError("UNAUTHORIZED", source.unknown);
      const keyKind = projectKeyKind(key);
      req.principal = { kind: "projectKey", keyKind, key, workspaceId: project.workspaceId, project };
      req.rateLimitKey = ingestLimitKey({ key, keyKind, address: req.ip });
      if (limit) await limit.call(app, req, reply);
    };
  });

  app.decorate("requireTransactionalKey", (lookup: TransactionalKeyLookup) => {
    return async function requireTransactionalKey(req: FastifyRequest) {
      const raw = bearerOrApiKey(req, KEY_PREFIX.transactional);
      if (!raw)
        throw new AppError(
          "UNAUTHORIZED",
          "missing or invalid svc_tx credential: send Authorization: Bearer svc_tx_…",
        );
      const key = await lookup(raw);
      if (!key) throw new AppError("UNAUTHORIZED", "invalid or revoked transactional API key");
      req.principal = { kind: "txKey", keyKind: "transactional", ...key, project: null };
      req.rateLimitKey = `tx:${key.keyId}`;
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
