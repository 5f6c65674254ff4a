import { randomUUID } from "node:crypto";
import path from "node:path";
import cookie from "@fastify/cookie";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import Fastify, { type FastifyInstance, type FastifyServerOptions, LogController } from "fastify";
import type client from "prom-client";
import type { Config } from "./config.js";
import { modules } from "./modules/index.js";
import { AnalyticsEngine, engineFileOf } from "./modules/analytics/service.js";
import { createPrincipalResolver } from "./modules/workspace/service.js";
import { registerApiDocs } from "./platform/api-docs.js";
import { authPlugin } from "./platform/auth/plugin.js";
import { SecretBox } from "./platform/crypto.js";
import { type Db, type DbHandle, openDatabase } from "./platform/db/index.js";
import { migrateToLatest } from "./platform/db/migrate.js";
import { type ShardLease, claimWriterShard } from "./platform/db/shard-lease.js";
import { AppState, type ServiceDeps } from "./platform/deps.js";
import { type ErrorFormat, MAX_PARAM_LENGTH, handleClientError, handleError } from "./platform/errors.js";
import { EventBus } from "./platform/event-bus.js";
import { registerBodies } from "./platform/http/bodies.js";
import { DEFAULT_BODY_DRAIN, registerBodyDrain } from "./platform/http/body-drain.js";
import { type PageFallback, registerLifecycle } from "./platform/http/lifecycle.js";
import { registerMetrics, registerProbes } from "./platform/http/observability.js";
import { registerRequestLog } from "./platform/http/request-log.js";
import { registerRouteConventions } from "./platform/http/route-conventions.js";
import { registerCompression, registerSecurityHeaders } from "./platform/http-hardening.js";
import { JobRegistry, JobWorker } from "./platform/jobs/index.js";
import { DEFAULT_LOGIN_LIMITS, LoginThrottle } from "./platform/login-throttle.js";
import { redactUrl, scrubLogLine } from "./platform/log-redaction.js";
import { readerConfigOf } from "./platform/db/reader.js";
import { registerReadPoolMetrics } from "./platform/read-pool/metrics.js";
import { ReadPool } from "./platform/read-pool/pool.js";
import { InlineReads, type ReadRunner } from "./platform/read-pool/task.js";
import { registerOpenApi } from "./platform/openapi.js";
import { createLimit, registerRateLimit } from "./platform/rate-limit.js";
import { watchRedis } from "./platform/redis-health.js";

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
    /** Read the body as JSON whatever its Content-Type (Segment's API; `readAnyBodyAsJson`). */
    jsonWhateverType?: boolean;
    /** Errors of this route use its module's own format (email's transactional API). */
    errorFormat?: ErrorFormat;
    /** Public endpoint: CORS open to any origin. */
    publicCors?: boolean;
    /** Ingest: the minimal security headers (src/platform/http-hardening.ts). */
    hotPath?: boolean;
  }
}

export type { PageFallback };

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
            hooks: { streamWrite: scrubLogLine },
            ...(typeof opts.logger === "object" ? opts.logger : {}),
          },
    bodyLimit: 1024 * 1024,
    // Every error body carries this id and so does the request's log line; unique across processes
    // and restarts, where Fastify's own counter ("req-1") starts again in each.
    genReqId: () => `req_${randomUUID()}`,
    // Two info lines per request cost a busy server more than its work: platform/http/request-log.ts
    // logs refusals, slow requests and a summary a minute instead.
    logController: new LogController({ disableRequestLogging: true }),
    // Forwarding headers are believed only from the proxies TRUST_PROXY names (off by default).
    trustProxy:
      typeof config.trustProxy === "number"
        ? (
            (hops: number) => (_address: string, hop: number) =>
              hop < hops
          )(config.trustProxy)
        : config.trustProxy,
    // Every error in the general format, also the ones raised before a route runs: the router's
    // (bad percent-encoding, a too-long parameter), the HTTP parser's (431, 408, malformed), and
    // shutdown's 503 (Fastify's own fast path writes a fixed body, so it is off; see below).
    frameworkErrors: (err, req, reply) => handleError(err, req, reply),
    clientErrorHandler: handleClientError,
    return503OnClosing: false,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
  }).withTypeProvider<TypeBoxTypeProvider>();

  registerBodies(app);
  registerBodyDrain(app, { ...DEFAULT_BODY_DRAIN, ...config.bodyDrain });
  // PostgreSQL: the process's own rows of the shared counters, held while it runs (shard-lease.ts).
  // Claimed when the app is made ready, before it serves or runs jobs: a process waiting for a free
  // shard waits there, outside plugin registration and its timeout.
  let shardLease: ShardLease | undefined;
  if (!opts.handle && handle.dialect === "postgres")
    app.addHook("onReady", async () => {
      shardLease = await claimWriterShard(handle, config, app.log);
    });
  const secrets = new SecretBox(config.secretKey);
  const registry = new JobRegistry();
  const worker = new JobWorker(handle, registry, config, app.log, { pollMs: config.jobPollMs });
  app.decorate("config", config);
  app.decorate("db", handle.db);
  app.decorate("dbHandle", handle);
  app.decorate("secrets", secrets);
  app.decorate("jobs", registry);
  app.decorate("worker", worker);
  app.decorate("eventBus", new EventBus(handle.sqlite));
  const state = new AppState();
  const engine = openEngine(config, app);
  const reads = openReads(config, handle, app, state, engine);
  const deps: ServiceDeps = {
    db: handle.db,
    dbHandle: handle,
    config,
    secrets,
    log: app.log,
    jobs: registry,
    eventBus: app.eventBus,
    reads,
    engine,
    state,
  };
  app.decorate("deps", deps);
  const metricsRegistry = registerMetrics(app);
  if (reads instanceof ReadPool) registerReadPoolMetrics(metricsRegistry, reads);
  registerRequestLog(app);
  registerLifecycle(app);
  registerRouteConventions(app);

  await app.register(cookie);
  await registerSecurityHeaders(app);
  await registerCompression(app);
  const redis = await registerRateLimit(app, config.redisUrl);
  deps.redis = redis;
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
  registerProbes(app, handle.db, redisHealth?.up);

  app.addHook("onClose", async () => {
    await worker.stop();
    if (reads instanceof ReadPool) await reads.close();
    await engine.close();
    await redis?.quit().catch(() => {});
    if (!opts.handle) await handle.close();
    await shardLease?.release();
  });
  return app;
}

/**
 * The read pool (platform/read-pool/), its workers loading the same build as this file. An
 * in-memory SQLite database has no file another thread could open, so there (and with
 * READ_WORKERS=0) reads run inline.
 */
function openReads(
  config: Config,
  handle: DbHandle,
  app: FastifyInstance,
  state: AppState,
  engine: AnalyticsEngine,
): ReadRunner {
  if (config.readPool.workers <= 0 || (handle.dialect === "sqlite" && config.sqlitePath === ":memory:"))
    return new InlineReads(handle.db, state, engine);
  return new ReadPool(
    {
      entry: new URL(`./platform/read-pool/worker${EXT}`, import.meta.url),
      tasks: new URL(`./modules/read-tasks${EXT}`, import.meta.url),
    },
    readerConfigOf(config),
    config.readPool,
    (err) => app.log.error({ err }, "read worker failed"),
    { port: () => engine.port(), wake: () => engine.wake() },
  );
}

/** The analytics engine (analytics/engine/): its thread starts when a report first asks. */
function openEngine(config: Config, app: FastifyInstance): AnalyticsEngine {
  return new AnalyticsEngine(
    new URL(`./modules/analytics/engine/thread${EXT}`, import.meta.url),
    {
      path: engineFileOf(config),
      // Processes sharing DATA_DIR (PostgreSQL) each take a file of their own.
      slots: ENGINE_SLOTS,
      ...config.engine,
      reader: readerConfigOf(config),
    },
    (err) => app.log.error({ err }, "analytics engine failed"),
  );
}

/** Processes that can share one DATA_DIR, each with its own copy of the analytics engine. */
const ENGINE_SLOTS = 16;

/** This file's extension: `.ts` under tsx (the threads load sources too), `.js` from dist/. */
const EXT = path.extname(new URL(import.meta.url).pathname);
