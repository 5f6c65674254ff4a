import swagger from "@fastify/swagger";
import { type TSchema, Type } from "@sinclair/typebox";
import type { FastifyInstance, FastifySchema, RouteOptions } from "fastify";
import { type AuthKind, authKindOf } from "./auth/plugin.js";
import { ERROR_STATUS, type ErrorCode, type ErrorFormat } from "./errors.js";

declare module "fastify" {
  interface FastifySchema {
    /**
     * Error codes the route can answer with beyond those derived from its input and authentication
     * (see `errorsOf`). Documentation only: it adds responses to /openapi.json, nothing at run time.
     */
    errors?: readonly string[];
  }
}

const ErrorSchema = Type.Object(
  {
    error: Type.String({ description: "human-readable message; validation errors name the field" }),
    code: Type.String({ enum: Object.keys(ERROR_STATUS), description: "stable machine-readable code" }),
    status: Type.Integer({ description: "the HTTP status again" }),
    requestId: Type.String({ description: "the id of the request in the server's log" }),
    errors: Type.Optional(
      Type.Array(Type.Object({ index: Type.Integer(), code: Type.String(), message: Type.String() }), {
        description: "POST /api/events: the invalid events of a batch",
      }),
    ),
  },
  { description: "The error format of every endpoint except the transactional send API" },
);

const SECURITY_SCHEMES = {
  projectKey: {
    type: "apiKey",
    in: "header",
    name: "x-api-key",
    description: "Project API key `svc_key_…` (server-side integrations).",
  },
  projectBearer: {
    type: "http",
    scheme: "bearer",
    description: "The project API key as `Authorization: Bearer svc_key_…`.",
  },
  session: {
    type: "apiKey",
    in: "cookie",
    name: "svc_session",
    description:
      "Dashboard session set by POST /api/auth/login. Acts on the project named by the `x-project-id` " +
      "header, else the workspace's first project.",
  },
  txBearer: {
    type: "http",
    scheme: "bearer",
    description: "Workspace transactional key as `Authorization: Bearer svc_tx_…` (preferred).",
  },
  txApiKey: {
    type: "apiKey",
    in: "header",
    name: "X-Api-Key",
    description: "Workspace transactional key `svc_tx_…`.",
  },
  publicKeyBearer: {
    type: "http",
    scheme: "bearer",
    description:
      "The project's public key as `Authorization: Bearer svc_pk_…` (OpenFeature's OFREP providers, " +
      "server and browser alike).",
  },
  segmentWriteKey: {
    type: "http",
    scheme: "basic",
    description:
      "Segment's tracking API (/v1/…): the write key as user name, empty password — the public key " +
      "`svc_pk_…` in browsers, a secret key `svc_key_…` on servers. `writeKey` in the body also works.",
  },
} as const;

type RouteAuth = AuthKind | "transactional" | "public";
type Security = { [scheme in keyof typeof SECURITY_SCHEMES]?: string[] }[];

const SECURITY: Record<RouteAuth, Security> = {
  project: [{ projectKey: [] }, { projectBearer: [] }, { session: [] }],
  session: [{ session: [] }],
  admin: [{ session: [] }],
  transactional: [{ txBearer: [] }, { txApiKey: [] }],
  public: [],
};

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * How a route authenticates: the tag `requireProject`/`requireSession`/`requireAdmin` leave on
 * their hook; routes in the transactional error format authenticate with a `svc_tx_` key in their
 * own hook; anything else is public (it may still check a project key it receives in the body or
 * query, which the route then declares as an `UNAUTHORIZED` error).
 */
function authOf(route: RouteOptions): RouteAuth {
  for (const hook of [route.onRequest, route.preValidation, route.preHandler].flat()) {
    const kind = authKindOf(hook);
    if (kind) return kind;
  }
  return route.config?.errorFormat ? "transactional" : "public";
}

/** The error codes a route can answer with, by status: derived from its input and authentication, plus declared ones. */
function errorsOf(route: RouteOptions, schema: FastifySchema): Map<number, string[]> {
  const out = new Map<number, Set<string>>();
  const format = route.config?.errorFormat;
  const statusOf = (code: string) => format?.statuses[code] ?? ERROR_STATUS[code as ErrorCode];
  const add = (code: string, status = statusOf(code)) => {
    if (!out.has(status)) out.set(status, new Set());
    out.get(status)!.add(code);
  };
  // A route family with its own format names general errors in its own codes.
  const own = (general: ErrorCode) => format?.codeFor(general) ?? general;
  const method = [route.method].flat()[0]!.toUpperCase();
  // Malformed JSON is 400 on any mutating request; schemas add field errors.
  if (schema.body || schema.querystring || schema.params || MUTATING.has(method))
    add(own("VALIDATION_ERROR"));
  if (schema.body) {
    add(own("PAYLOAD_TOO_LARGE"), 413);
    add(own("UNSUPPORTED_MEDIA_TYPE"), 415);
  }
  const auth = authOf(route);
  if (auth === "project") {
    // 404 also for an `x-project-id` outside the session's workspace.
    for (const c of ["UNAUTHORIZED", "NOT_FOUND", "RATE_LIMITED"] as const) add(c);
  } else if (auth === "session" || auth === "admin") {
    for (const c of ["UNAUTHORIZED", "FORBIDDEN", "RATE_LIMITED"] as const) add(c);
    if (schema.params) add("NOT_FOUND");
  } else if (auth === "transactional") {
    add(own("UNAUTHORIZED"));
  }
  for (const code of schema.errors ?? []) add(code);
  return new Map([...out].sort(([a], [b]) => a - b).map(([s, codes]) => [s, [...codes]]));
}

const STATUS_TEXT: Record<number, string> = {
  400: "Invalid request",
  401: "Missing or invalid credentials",
  403: "Not allowed with these credentials",
  404: "Not found (a record of another project or workspace is not found either)",
  409: "Conflicts with the current state",
  413: "Body larger than 1 MiB",
  415: "Body is not JSON",
  422: "Refused",
  429: "Rate limit exceeded",
  502: "The platform could not be reached",
};

const RATE_LIMIT_HEADERS = {
  "Retry-After": { description: "seconds to wait", schema: { type: "integer" } },
  "X-RateLimit-Limit": { description: "requests allowed per window", schema: { type: "integer" } },
  "X-RateLimit-Remaining": { description: "requests left in the window", schema: { type: "integer" } },
  "X-RateLimit-Reset": { description: "seconds until the window resets", schema: { type: "integer" } },
};

function errorResponse(status: number, codes: string[], format: ErrorFormat | undefined) {
  const list = codes.map((c) => `\`${c}\``).join(", ");
  return {
    description: `${STATUS_TEXT[status] ?? "Error"}: ${list}`,
    ...(status === 429 ? { headers: RATE_LIMIT_HEADERS } : {}),
    content: {
      "application/json": {
        schema: { $ref: `#/components/schemas/${format?.schemaName ?? "Error"}` },
      },
    },
  };
}

/** `GET /api/beliefs/:id` → `getApiBeliefsById`, for routes that set no operationId. */
const fallbackOperationId = (method: string, url: string) =>
  method.toLowerCase() +
  url
    .split("/")
    .filter(Boolean)
    .map((s) => (s.startsWith(":") ? `By-${s.slice(1)}` : s))
    .join("-")
    .split(/[^A-Za-z0-9]+/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join("");

type Operation = { operationId?: string; responses?: Record<string, unknown> };

/**
 * Registers @fastify/swagger with what every operation of the document needs and a route cannot
 * be expected to repeat: `security` from how the route authenticates, the error responses it can
 * produce (one shared schema per error format), and an `operationId` where the route set none.
 * Summaries are the routes' own. This changes the document only, never how a route answers.
 */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  const errorsByOperation = new Map<string, { errors: Map<number, string[]>; format?: ErrorFormat }>();
  // The route families' own error bodies, added to the document's schemas as routes name them.
  const formats = new Map<string, ErrorFormat>();
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Lift API",
        version: "1.0.0",
        description:
          "Growth analytics, experiments, webhooks and transactional email.\n\n" +
          "Errors are `{error, code, status}`; the transactional send API answers " +
          "`{error: {code, message}}`. Limits are per key and minute; a 429 carries `Retry-After`.\n\n" +
          "JSON bodies may nest at most 64 levels (the body itself is level 1) and may not hold numbers " +
          "that overflow a double (`1e999`): both are 400 `VALIDATION_ERROR` naming the problem.",
      },
      // Relative: resolved against wherever this document was fetched, behind any proxy.
      servers: [{ url: "/", description: "this server" }],
      components: {
        securitySchemes: SECURITY_SCHEMES,
        schemas: {
          Error: ErrorSchema as TSchema,
        },
      },
    },
    transform: ({ schema, url, route }) => {
      if (!schema || schema.hide) return { schema, url };
      const method = [route.method].flat()[0]!;
      const operationId = schema.operationId ?? fallbackOperationId(method, url);
      const format = route.config?.errorFormat;
      if (format) formats.set(format.schemaName, format);
      errorsByOperation.set(operationId, { errors: errorsOf(route, schema), format });
      return {
        url,
        schema: { ...schema, operationId, security: schema.security ?? SECURITY[authOf(route)] },
      };
    },
    transformObject: (doc) => {
      if (!("openapiObject" in doc)) return doc.swaggerObject;
      const { openapiObject } = doc;
      openapiObject.components ??= {};
      const schemas = openapiObject.components.schemas ?? {};
      for (const f of formats.values()) schemas[f.schemaName] = f.schema as never;
      for (const item of Object.values(openapiObject.paths ?? {})) {
        for (const op of Object.values(item ?? {}) as Operation[]) {
          const found = op?.operationId ? errorsByOperation.get(op.operationId) : undefined;
          if (!found) continue;
          op.responses ??= {};
          const responses = op.responses;
          // Specific statuses replace a route's catch-all 4XX in the document.
          if (found.errors.size > 0) delete responses["4XX"];
          for (const [status, codes] of found.errors)
            responses[status] ??= errorResponse(status, codes, found.format);
        }
      }
      return openapiObject;
    },
  });
}
