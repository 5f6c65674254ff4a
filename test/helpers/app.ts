import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { FastifyInstance } from "fastify";
import pg from "pg";
import { buildApp } from "../../src/app.js";
import { testSchemaPrefix } from "../global-setup.js";
import { type Config, isPostgres, loadConfig } from "../../src/config.js";
import { provisionWorkspace, type Provisioned } from "../../src/modules/workspace/bootstrap.js";
import { createUser, startSession } from "../../src/modules/workspace/service.js";
import type { Role, Tier } from "../../src/modules/workspace/tables.js";
import { SESSION_COOKIE, signSession } from "../../src/platform/auth/session.js";

export interface TestResponse<T = any> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
}

export type As = "key" | "admin" | "member" | "none";

/** A desktop browser's User-Agent: inject's default one is a bot to the events module. */
export const BROWSER_UA =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36";
export interface RequestOptions {
  as?: As;
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

/**
 * A fresh database for one test file: a temp SQLite file, or a new schema in the PostgreSQL that
 * DATABASE_URL points at. Workers are not started; tests drain jobs with `app.worker.drain()`.
 */
export async function startTestApp(overrides: Partial<Config> = {}) {
  const dataDir = mkdtempSync(path.join(tmpdir(), "lift-test-"));
  const env = { ...process.env };
  // Named after the vitest main process (our parent), which drops its schemas when the run ends.
  const schema = `${testSchemaPrefix(process.ppid)}${randomBytes(6).toString("hex")}`;
  const base = loadConfig(env, { dataDir, secretKey: randomBytes(32).toString("base64url") });
  const config: Config = {
    ...base,
    sqlitePath: path.join(dataDir, "test.db"),
    databaseSchema: isPostgres(base) ? schema : undefined,
    startWorkers: false,
    jobPollMs: 10,
    retryScale: 0.001,
    logLevel: "silent",
    publicUrl: "http://localhost:3000",
    ...overrides,
  };
  if (config.databaseSchema) {
    const c = new pg.Client({ connectionString: config.databaseUrl });
    await c.connect();
    await c.query(`CREATE SCHEMA ${config.databaseSchema}`);
    await c.end();
  }
  const app = await buildApp(config, { logger: false });
  await app.ready();

  // PostgreSQL schemas are dropped at the end of the run (test/global-setup.ts), not here: Kysely's
  // migrator introspects every schema's tables, and a DROP SCHEMA racing that query in another
  // test file fails its migrations with "schema … does not exist".
  const close = async () => {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  };

  let counter = 0;
  /** A new workspace with an admin, a project and a project API key. */
  const tenant = async (opts: { tier?: Tier } = {}) => {
    counter++;
    const email = `admin-${counter}-${randomBytes(4).toString("hex")}@example.com`;
    const p = await provisionWorkspace(app.db, {
      name: `Workspace ${counter}`,
      email,
      password: "correct horse battery",
      tier: opts.tier,
    });
    return makeTenant(app, p);
  };

  return { app, config, close, tenant };
}

export type TestApp = Awaited<ReturnType<typeof startTestApp>>;
export type Tenant = Awaited<ReturnType<typeof makeTenant>>;

/** A signed-in session of the user, as POST /api/auth/login makes one, without the password round. */
export async function sessionCookie(app: FastifyInstance, userId: string): Promise<string> {
  const session = await startSession(app.db, userId);
  return `${SESSION_COOKIE}=${await signSession(app.sessionKey, { sessionId: session.id, userId }, session.expiresAt)}`;
}

async function makeTenant(app: FastifyInstance, p: Provisioned) {
  const adminCookie = await sessionCookie(app, p.admin.id);
  let memberCookie: string | undefined;

  async function headersFor(as: As): Promise<Record<string, string>> {
    if (as === "key") return { "x-api-key": p.key.rawKey };
    if (as === "admin") return { cookie: adminCookie };
    if (as === "member") {
      if (!memberCookie) {
        const m = await createUser(app.db, p.workspace.id, {
          email: `member-${randomBytes(4).toString("hex")}@example.com`,
          role: "member" as Role,
          password: "correct horse battery",
        });
        memberCookie = await sessionCookie(app, m.id);
      }
      return { cookie: memberCookie };
    }
    return {};
  }

  async function request<T = any>(
    method: string,
    url: string,
    body?: unknown,
    opts: RequestOptions = {},
  ): Promise<TestResponse<T>> {
    const headers: Record<string, string> = {
      ...(await headersFor(opts.as ?? "key")),
      ...(opts.headers ?? {}),
    };
    if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === "content-type")) {
      headers["content-type"] = "application/json";
    }
    const res = await app.inject({
      method: method as "GET",
      url,
      query: opts.query,
      headers,
      payload:
        body === undefined
          ? undefined
          : typeof body === "string" || Buffer.isBuffer(body)
            ? body
            : JSON.stringify(body),
    });
    let parsed: unknown;
    try {
      parsed = res.body ? JSON.parse(res.body) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.statusCode, body: parsed as T, headers: res.headers, text: res.body };
  }

  return {
    ...p,
    workspaceId: p.workspace.id,
    projectId: p.project.id,
    publicKey: p.project.publicKey,
    apiKey: p.key.rawKey,
    adminCookie,
    headersFor,
    request,
    get: <T = any>(url: string, opts?: RequestOptions) => request<T>("GET", url, undefined, opts),
    post: <T = any>(url: string, body?: unknown, opts?: RequestOptions) =>
      request<T>("POST", url, body ?? {}, opts),
    patch: <T = any>(url: string, body?: unknown, opts?: RequestOptions) =>
      request<T>("PATCH", url, body ?? {}, opts),
    put: <T = any>(url: string, body?: unknown, opts?: RequestOptions) =>
      request<T>("PUT", url, body ?? {}, opts),
    del: <T = any>(url: string, body?: unknown, opts?: RequestOptions) =>
      request<T>("DELETE", url, body, opts),
  };
}
