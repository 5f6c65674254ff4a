import cookie from "@fastify/cookie";
import cors from "@fastify/cors";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from "fastify";
import { sql } from "kysely";
import client from "prom-client";
import type { Config } from "./config.js";
import { modules } from "./modules/index.js";
import { createPrincipalResolver } from "./modules/workspace/service.js";
import { authKindOf, authPlugin } from "./platform/auth/plugin.js";
import { SecretBox } from "./platform/crypto.js";
import type { ServiceDeps } from "./platform/deps.js";
import { type Db, type DbHandle, openDatabase } from "./platform/db/index.js";
import { migrateToLatest } from "./platform/db/migrate.js";
import { registerApiDocs } from "./platform/api-docs.js";
import { registerCompression, registerSecurityHeaders } from "./platform/http-hardening.js";
import { nulInUrlFields, parseJsonBody } from "./platform/json-body.js";
import { DEFAULT_LOGIN_LIMITS, LoginThrottle } from "./platform/login-throttle.js";
import { AppError, MAX_PARAM_LENGTH, handleClientError, handleError } from "./platform/errors.js";
import { EventBus } from "./platform/event-bus.js";
import { JobRegistry, JobWorker } from "./platform/jobs.js";
import { registerOpenApi } from "./platform/openapi.js";
import { createLimit, registerRateLimit } from "./platform/rate-limit.js";
import { watchRedis } from "./platform/redis-health.js";
import { createAjv } from "./platform/validation.js";

declare module "fastify" {
  interface FastifyInstance {
    config: Config;
    db: Db;
    dbHandle: DbHandle;
    secrets: SecretBox;
    jobs: JobRegistry;
    worker: JobWorker;
    metricsRegistry: client.Registry;
    /** Processors run inside the events group-commit transaction (see platform/event-bus.ts). */
    eventBus: EventBus;
    /** The app's shared parts as services receive them (platform/deps.ts). */
    deps: ServiceDeps;
    /** Lets one module answer GETs that no route matched (the dashboard's deep links). */
    setPageFallback(fn: PageFallback): void;
    /** Every route registered, as "METHOD /url" (HEAD and OPTIONS excluded): the authorization matrix checks it. */
    routeTable: string[];
    /** Counts failed sign-ins; POST /api/auth/login answers 429 past its limits. */
    loginThrottle: LoginThrottle;
  }
  interface FastifyRequest {
    /** The body exactly as received (after any decompression), for signature checks. */
    rawBody?: string;
  }
  interface FastifyContextConfig {
    /** Accept `text/plain` bodies holding JSON (navigator.sendBeacon). */
    allowTextPlain?: boolean;
    /** Errors of this route use the transactional format. */
    errorFormat?: "general" | "transactional";
    /** Public endpoint: CORS open to any origin. */
    publicCors?: boolean;
    /** Ingest: the minimal security headers (src/platform/http-hardening.ts). */
    hotPath?: boolean;
  }
}

/** Answers an unmatched GET, or returns undefined to leave it a 404. */
export type PageFallback = (req: FastifyRequest, reply: FastifyReply) => Promise<unknown> | undefined;

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);
// OAuth callbacks and tracking links carry one-time codes and signatures in the query string.
const SECRET_PARAMS = /([?&](?:code|state|token|access_token|refresh_token|sig|signature)=)[^&]*/gi;
export const redactUrl = (url: string) => url.replace(SECRET_PARAMS, "$1[redacted]");

export interface BuildOptions {
  /** Use an already-open database (tests share nothing else). */
  handle?: DbHandle;
  logger?: FastifyServerOptions["logger"];
}

export async function buildApp(config: Config, opts: BuildOptions = {}): Promise<FastifyInstance> {
  const handle = opts.handle ?? openDatabase(config);
  await migrateToLatest(handle.db, handle.dialect, config.databaseSchema, handle.sqlite);

  const app = Fastify({
    // Redaction applies to any logger given (tests pass their own stream).
    logger:
      opts.logger === false
        ? false
        : {
            level: config.logLevel,
            redact: ["req.headers.authorization", "req.headers.cookie", 'req.headers["x-api-key"]'],
            serializers: { req: (req) => ({ method: req.method, url: redactUrl(req.url), reqId: req.id }) },
            ...(typeof opts.logger === "object" ? opts.logger : {}),
          },
    bodyLimit: 1024 * 1024,
    trustProxy: true,
    // Every error in the general format, also the ones raised before a route runs: the router's
    // (bad percent-encoding, a too-long parameter), the HTTP parser's (431, 408, malformed), and
    // shutdown's 503 (Fastify's own fast path writes a fixed body, so it is off; see below).
    frameworkErrors: (err, req, reply) => handleError(err, req, reply),
    clientErrorHandler: handleClientError,
    return503OnClosing: false,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Bodies are JSON and validated as typed (no "10" → 10); query strings and params are text and coerced.
  const bodyAjv = createAjv(false);
  const textAjv = createAjv("array");
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === "body" ? bodyAjv : textAjv).compile(schema),
  );

  const secrets = new SecretBox(config.secretKey);
  const registry = new JobRegistry();
  const worker = new JobWorker(handle, registry, config, app.log, { pollMs: config.jobPollMs });
  const metricsRegistry = new client.Registry();
  client.collectDefaultMetrics({ register: metricsRegistry });
  const httpDuration = new client.Histogram({
    name: "http_request_duration_seconds",
    help: "HTTP request duration",
    labelNames: ["method", "route", "status"],
    registers: [metricsRegistry],
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
  });

  app.decorate("config", config);
  app.decorate("db", handle.db);
  app.decorate("dbHandle", handle);
  app.decorate("secrets", secrets);
  app.decorate("jobs", registry);
  app.decorate("worker", worker);
  app.decorate("metricsRegistry", metricsRegistry);
  app.decorate("eventBus", new EventBus(handle.sqlite));
  const deps: ServiceDeps = {
    db: handle.db,
    dbHandle: handle,
    config,
    secrets,
    log: app.log,
    jobs: registry,
    eventBus: app.eventBus,
  };
  app.decorate("deps", deps);
  app.decorateRequest("rawBody", undefined);

  app.setErrorHandler((err, req, reply) => handleError(err, req, reply));
  // A request that reaches a closing server (a busy keep-alive connection) is refused before it
  // does any work, as Fastify's return503OnClosing would, in our format. Callback style: this
  // runs on every request.
  let closing = false;
  app.addHook("preClose", (done) => {
    closing = true;
    done();
  });
  app.addHook("onRequest", (_req, _reply, done) => {
    if (closing) done(new AppError("UNAVAILABLE", "the server is shutting down; retry the request"));
    else done();
  });
  // A GET (or HEAD) no route matched may be a page of the dashboard (a deep link): the dashboard module
  // answers those with its app shell. As a fallback rather than a wildcard route, so the router's
  // own answers for API paths (a too-long parameter, no such route) stay as they are.
  let pageFallback: PageFallback | null = null;
  app.decorate("setPageFallback", (fn: PageFallback) => {
    pageFallback = fn;
  });
  app.setNotFoundHandler((req, reply) => {
    const page = req.method === "GET" || req.method === "HEAD" ? pageFallback?.(req, reply) : undefined;
    if (page) return page;
    return handleError(
      new AppError("NOT_FOUND", `route ${req.method} ${req.url.split("?")[0]} not found`),
      req,
      reply,
    );
  });

  // JSON bodies are kept raw as well: incoming webhooks verify signatures over the exact bytes.
  app.removeContentTypeParser(["application/json", "text/plain"]);
  const parseJson = (
    req: { rawBody?: string },
    body: string,
    done: (e: Error | null, v?: unknown) => void,
  ) => {
    req.rawBody = body;
    if (body.length === 0) return done(null, undefined);
    try {
      done(null, parseJsonBody(body));
    } catch (err) {
      done(err as Error);
    }
  };
  app.addContentTypeParser("application/json", { parseAs: "string" }, (req, body, done) =>
    parseJson(req, body as string, done),
  );
  app.addContentTypeParser("text/plain", { parseAs: "string" }, (req, body, done) =>
    parseJson(req, body as string, done),
  );

  // Mutating requests with a body must be JSON: this is also the CSRF defence for cookie sessions,
  // since a cross-site form cannot send application/json without a CORS preflight.
  app.addHook("preValidation", async (req) => {
    if (req.url.includes("%00")) {
      const field = nulInUrlFields({
        params: req.params as Record<string, unknown>,
        querystring: req.query as Record<string, unknown>,
      });
      if (field) throw new AppError("VALIDATION_ERROR", `${field} must not contain NUL (\\u0000) characters`);
    }
    if (!MUTATING.has(req.method)) return;
    const hasBody =
      Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;
    if (!hasBody) return;
    const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    if (type === "application/json") return;
    if (type === "text/plain" && req.routeOptions.config?.allowTextPlain) return;
    throw new AppError("UNSUPPORTED_MEDIA_TYPE", "Content-Type must be application/json");
  });

  app.addHook("onResponse", async (req, reply) => {
    httpDuration.observe(
      { method: req.method, route: req.routeOptions.url ?? "unknown", status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });

  await app.register(cookie);
  // CORS is off by default; routes marked `publicCors` (the snippet's endpoints) get open CORS
  // through the plugin's static per-route options, so no options object is built per request.
  // Not strict: a browser's preflight always has Origin and Access-Control-Request-Method, and the
  // strict mode's answer to one without them is a text/plain 400 outside our error format.
  const PUBLIC_CORS = {
    origin: "*",
    methods: ["GET", "POST", "OPTIONS"],
    maxAge: 86400,
    strictPreflight: false,
  };
  const routeTable: string[] = [];
  app.decorate("routeTable", routeTable);
  app.addHook("onRoute", (route) => {
    for (const m of [route.method].flat())
      if (m !== "HEAD" && m !== "OPTIONS") routeTable.push(`${m} ${route.url}`);
    // Authentication (and its rate limit) runs before body validation: a caller without valid
    // credentials learns nothing from the body's validation, and invalid bodies still count
    // against the limit. Routes declare their guard as a preHandler; it moves to preValidation.
    const pre = [route.preHandler ?? []].flat();
    const guards = pre.filter((hook) => authKindOf(hook));
    if (guards.length) {
      route.preHandler = pre.filter((hook) => !authKindOf(hook));
      route.preValidation = [...guards, ...[route.preValidation ?? []].flat()];
    }
    if (route.config?.publicCors)
      route.config = { ...route.config, cors: PUBLIC_CORS } as typeof route.config;
  });
  await app.register(cors, { origin: false });
  await registerSecurityHeaders(app);
  await registerCompression(app);
  const redis = await registerRateLimit(app, config.redisUrl);
  const redisHealth = redis ? watchRedis(redis, app.log, metricsRegistry) : undefined;
  app.decorate("loginThrottle", new LoginThrottle(redis, { ...DEFAULT_LOGIN_LIMITS, ...config.loginLimits }));
  await app.register(authPlugin, {
    resolver: createPrincipalResolver(handle.db),
    sessionKey: new Uint8Array(secrets.derive("session")),
    limits: {
      read: createLimit(app, { name: "reads", max: config.rateLimits.reads }),
      write: createLimit(app, { name: "writes", max: config.rateLimits.writes }),
    },
  });

  await registerOpenApi(app);

  for (const m of modules) await m.register(app);

  await registerApiDocs(app);
  app.get("/healthz", { schema: { hide: true } }, async (_req, reply) => {
    try {
      await sql`select 1`.execute(handle.db);
      // Degraded, not down: the API still serves everything, with rate limits failing open.
      // A 503 here would make load balancers drop every node during a Redis outage.
      if (redisHealth && !redisHealth.up()) return { status: "degraded", redis: "unavailable" };
      return { status: "ok" };
    } catch {
      return reply.code(503).send({ status: "unavailable" });
    }
  });
  app.get("/metrics", { schema: { hide: true } }, async (_req, reply) =>
    reply.type(metricsRegistry.contentType).send(await metricsRegistry.metrics()),
  );

  app.addHook("onClose", async () => {
    await worker.stop();
    await redis?.quit().catch(() => {});
    if (!opts.handle) await handle.close();
  });
  return app;
}
