import type { LoginLimits } from "./platform/login-throttle.js";
import type { BodyDrainLimits } from "./platform/http/body-drain.js";
import { existsSync, linkSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { ensurePrivateDir, narrowIfPresent } from "./platform/private-files.js";
import { randomBytes } from "node:crypto";
import { availableParallelism } from "node:os";
import type { ReadPoolOptions } from "./platform/read-pool/options.js";
import path from "node:path";

/** Typed configuration read from the environment; every value has an embedded-mode default. */
export interface Config {
  /** Test-only: a CA certificate webhook deliveries trust besides the system's (a test's receiver). */
  webhookExtraCa?: string | Buffer;
  port: number;
  host: string;
  dataDir: string;
  /** undefined → SQLite file under dataDir; postgres://… → PostgreSQL. */
  databaseUrl?: string;
  /** SQLite file path (":memory:" allowed); only used when databaseUrl is not postgres. */
  sqlitePath: string;
  /** PostgreSQL schema to use (tests give each file its own). */
  databaseSchema?: string;
  redisUrl?: string;
  secretKey: string;
  publicUrl: string;
  smtpUrl?: string;
  sandboxDomain: string;
  syncIntervalMs: number;
  /** How often enabled alerts are checked (ALERT_CHECK_INTERVAL). */
  alertCheckIntervalMs: number;
  /** How often subscriptions are checked for a due send (SUBSCRIPTION_CHECK_INTERVAL). */
  subscriptionCheckIntervalMs: number;
  allowPrivateWebhookTargets: boolean;
  adminEmail?: string;
  adminPassword?: string;
  rateLimits: {
    events: number;
    reads: number;
    writes: number;
    /**
     * Ingest budgets counted in events (Segment messages), per minute; 0 or absent disables (tests
     * and benches that turn the limits off give only the three above). `keyEvents`: per project
     * key, public or secret (RATE_LIMIT_KEY_EVENTS); `addressEvents`: per public key and client
     * address (RATE_LIMIT_ADDRESS_EVENTS); `addressLeads`: new leads per public key and client
     * address (RATE_LIMIT_ADDRESS_LEADS). See src/platform/ingest-limits.ts.
     */
    keyEvents?: number;
    addressEvents?: number;
    addressLeads?: number;
  };
  /**
   * Which proxies' X-Forwarded-For / -Proto / -Host to believe (TRUST_PROXY, Fastify's forms: a hop
   * count, addresses or CIDRs, `true` for any). Off by default: a client's own header is not its address.
   */
  trustProxy: boolean | number | string;
  /**
   * Countries from browsers' addresses at ingest (GEOIP): "bundled" (the default, the country
   * database shipped with Lift), "off", or the path of another MMDB country database. docs/privacy.md.
   */
  geoip: string;
  /** Bearer token for /metrics (METRICS_TOKEN); unset, /metrics answers loopback clients only. */
  metricsToken?: string;
  /** Overrides of the sign-in throttling limits (src/platform/login-throttle.ts); tests lower them. */
  loginLimits?: Partial<LoginLimits>;
  /** Overrides of how much of a refused body is drained (src/platform/http/body-drain.ts); tests lower them. */
  bodyDrain?: Partial<BodyDrainLimits>;
  /** Per-platform OAuth client config and base URLs, keyed by connector type in upper case. */
  platforms: Record<
    string,
    { clientId?: string; clientSecret?: string; baseUrl?: string; developerToken?: string }
  >;
  /** Sender of transactional email (EMAIL_FROM); defaults to no-reply at the PUBLIC_URL host. */
  emailFrom?: string;
  /** Job worker poll interval; tests lower it. */
  jobPollMs: number;
  /** Multiplier applied to retry schedules (webhooks, jobs); tests use a tiny value. */
  retryScale: number;
  logLevel: string;
  /** Start background workers (jobs, schedulers) with the app. */
  startWorkers: boolean;
  /** SQLite: events per merge of the per-visitor event index (EVENT_INDEX_MERGE_ROWS). */
  eventIndexMergeRows: number;
  /** PostgreSQL: this process's rows of sharded counters (platform/db/shard.ts); unset = from host and port. */
  rollupShard?: number;
  /** Caps and timeouts of the flag SDK streams, `GET /sub/:clientKey` (docs/deploy.md, "Flag streams"). */
  flagStreams: FlagStreamSettings;
  /** The read pool that answers reports off the request thread (platform/read-pool/; docs/deploy.md). */
  readPool: ReadPoolOptions;
  /** The analytics engine: DuckDB's file is DATA_DIR/analytics.duckdb (docs/operations.md). */
  engine: {
    memoryMb: number;
    threads: number;
    pollMs: number;
    /** a copy past this many events is a catch-up: reports get 503 meanwhile (default 100,000; tests lower it) */
    catchUpEvents?: number;
  };
}

const PLATFORM_KINDS = [
  "SEARCH_ADS",
  "WEB_ANALYTICS",
  "CRM",
  "PAYMENTS",
  "SOCIAL_ADS",
  "PROFESSIONAL_NETWORK_ADS",
  "ACCOUNTING",
];

function shardNumber(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 32_767)
    throw new Error(`ROLLUP_SHARD must be an integer from 0 to 32767: ${v}`);
  return n;
}

function num(v: string | undefined, dflt: number): number {
  if (v === undefined || v === "") return dflt;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`invalid number in environment: ${v}`);
  return n;
}

/** Parses durations like "6h", "30m", "45s", "500ms" or a bare number of milliseconds. */
export function parseDuration(v: string | undefined, dflt: number): number {
  if (!v) return dflt;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(v.trim());
  if (!m) throw new Error(`invalid duration: ${v}`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] ?? "ms"] ?? 1;
  return Number(m[1]) * unit;
}

/** SECRET_KEY signs sessions and roots encryption at rest: shorter keys are refused at start. */
export const MIN_SECRET_KEY_BYTES = 32;

function checkedSecretKey(key: string, from: string): string {
  if (Buffer.byteLength(key) < MIN_SECRET_KEY_BYTES)
    throw new Error(
      `${from} is ${Buffer.byteLength(key)} bytes; it signs sessions and encrypts stored credentials, so it must be at least ${MIN_SECRET_KEY_BYTES} (e.g. openssl rand -base64 32)`,
    );
  return key;
}

/** TRUST_PROXY: unset/false → trust none; true; a hop count; else addresses or CIDRs, comma-separated. */
export function parseTrustProxy(v: string | undefined): boolean | number | string {
  const t = (v ?? "").trim();
  if (t === "" || t === "false") return false;
  if (t === "true") return true;
  if (/^\d+$/.test(t)) return Number(t);
  return t;
}

/** The secret key encrypts credentials at rest; in embedded mode it is generated once into dataDir. */
function resolveSecretKey(env: NodeJS.ProcessEnv, dataDir: string): string {
  if (env.SECRET_KEY) return checkedSecretKey(env.SECRET_KEY, "SECRET_KEY");
  const file = path.join(dataDir, "secret.key");
  if (existsSync(file)) {
    narrowIfPresent(file);
    return checkedSecretKey(readFileSync(file, "utf8").trim(), file);
  }
  ensurePrivateDir(dataDir);
  // Two processes starting at once on a new data dir must end up with one key: the key is written
  // to a file of our own, then published with link(), which fails if another process got there first.
  const key = randomBytes(32).toString("base64url");
  const draft = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
  writeFileSync(draft, key, { mode: 0o600 });
  try {
    linkSync(draft, file);
    return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    return checkedSecretKey(readFileSync(file, "utf8").trim(), file);
  } finally {
    unlinkSync(draft);
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const dataDir = overrides.dataDir ?? env.DATA_DIR ?? "./data";
  const platforms: Config["platforms"] = {};
  for (const kind of PLATFORM_KINDS) {
    platforms[kind] = {
      clientId: env[`${kind}_CLIENT_ID`],
      clientSecret: env[`${kind}_CLIENT_SECRET`],
      baseUrl: env[`${kind}_BASE_URL`],
      // Google Ads also wants a developer token on every call (SEARCH_ADS_DEVELOPER_TOKEN).
      developerToken: env[`${kind}_DEVELOPER_TOKEN`],
    };
  }
  const port = num(env.PORT, 3000);
  const base: Config = {
    port,
    host: env.HOST ?? "0.0.0.0",
    dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    sqlitePath: path.join(dataDir, "lift.db"),
    databaseSchema: undefined,
    redisUrl: env.REDIS_URL || undefined,
    secretKey: overrides.secretKey ?? resolveSecretKey(env, dataDir),
    publicUrl: (env.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/$/, ""),
    smtpUrl: env.SMTP_URL || undefined,
    sandboxDomain: env.SANDBOX_DOMAIN ?? "sandbox.svc.test",
    syncIntervalMs: parseDuration(env.SYNC_INTERVAL, 6 * 3_600_000),
    alertCheckIntervalMs: parseDuration(env.ALERT_CHECK_INTERVAL, 3_600_000),
    subscriptionCheckIntervalMs: parseDuration(env.SUBSCRIPTION_CHECK_INTERVAL, 300_000),
    allowPrivateWebhookTargets: env.ALLOW_PRIVATE_WEBHOOK_TARGETS === "1",
    adminEmail: env.ADMIN_EMAIL || undefined,
    adminPassword: env.ADMIN_PASSWORD || undefined,
    emailFrom: env.EMAIL_FROM || undefined,
    rateLimits: {
      events: num(env.RATE_LIMIT_EVENTS, 1000),
      reads: num(env.RATE_LIMIT_READS, 200),
      writes: num(env.RATE_LIMIT_WRITES, 100),
      keyEvents: num(env.RATE_LIMIT_KEY_EVENTS, 300_000),
      addressEvents: num(env.RATE_LIMIT_ADDRESS_EVENTS, 5000),
      addressLeads: num(env.RATE_LIMIT_ADDRESS_LEADS, 20),
    },
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    geoip: env.GEOIP || "bundled",
    metricsToken: env.METRICS_TOKEN || undefined,
    platforms,
    jobPollMs: num(env.JOB_POLL_MS, 500),
    retryScale: num(env.RETRY_SCALE, 1),
    logLevel: env.LOG_LEVEL ?? "info",
    startWorkers: true,
    eventIndexMergeRows: num(env.EVENT_INDEX_MERGE_ROWS, 262_144),
    rollupShard: env.ROLLUP_SHARD ? shardNumber(env.ROLLUP_SHARD) : undefined,
    flagStreams: flagStreamSettings(env),
    readPool: readPoolOptions(env),
    engine: {
      memoryMb: num(env.ENGINE_MEMORY_MB, 1024),
      // DuckDB's threads: every core. They are the engine's own, never the request thread, which the
      // scheduler still serves while a query runs (docs/operations.md).
      threads: num(env.ENGINE_THREADS, availableParallelism()),
      pollMs: parseDuration(env.ENGINE_POLL, 1_000),
    },
  };
  return { ...base, ...overrides };
}

/**
 * One reader thread per core but one (the request thread keeps a core for ingest and health), at
 * least one and at most four; each interleaves two tasks.
 */
function readPoolOptions(env: NodeJS.ProcessEnv): ReadPoolOptions {
  const workers = num(env.READ_WORKERS, Math.min(4, Math.max(1, availableParallelism() - 1)));
  const maxQueue = num(env.READ_QUEUE, 64);
  return {
    workers,
    perWorker: 2,
    maxQueue,
    perProject: num(env.READ_PER_PROJECT, Math.max(4, Math.floor(maxQueue / 4))),
    timeoutMs: parseDuration(env.READ_TIMEOUT, 30_000),
    memoryMb: num(env.READ_WORKER_MEMORY_MB, 1024),
    pgConnections: 2,
  };
}

export interface FlagStreamSettings {
  /** Open streams per client address, an IPv6 client's /64 (FLAG_STREAMS_PER_ADDRESS; 0: no cap). */
  perAddress: number;
  /** Open streams per project (FLAG_STREAMS_PER_KEY; 0: no cap); unset: a quarter of the process's cap. */
  perKey?: number;
  /** The process's cap, which is also at most half its descriptor limit (FLAG_STREAMS_MAX). */
  max: number;
  /** A stream is ended after this less up to a quarter, at random (FLAG_STREAM_LIFETIME). */
  lifetimeMs: number;
  /** A stream whose output waited this long for its client to read is dropped (FLAG_STREAM_STALL). */
  stallMs: number;
  /** Test-only: the descriptor limit, instead of the process's. */
  openFiles?: number;
}

function flagStreamSettings(env: NodeJS.ProcessEnv): FlagStreamSettings {
  return {
    perAddress: num(env.FLAG_STREAMS_PER_ADDRESS, 100),
    perKey: env.FLAG_STREAMS_PER_KEY ? num(env.FLAG_STREAMS_PER_KEY, 0) : undefined,
    max: num(env.FLAG_STREAMS_MAX, 20_000),
    lifetimeMs: parseDuration(env.FLAG_STREAM_LIFETIME, 10 * 60_000),
    stallMs: parseDuration(env.FLAG_STREAM_STALL, 30_000),
  };
}

export function isPostgres(config: Pick<Config, "databaseUrl">): boolean {
  return !!config.databaseUrl && /^postgres(ql)?:\/\//.test(config.databaseUrl);
}
