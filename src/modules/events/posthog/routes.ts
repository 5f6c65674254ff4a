import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type KeySource, callerOf, projectOf, senderOf } from "../../../platform/auth/plugin.js";
import { AppError } from "../../../platform/errors.js";
import { createLimit } from "../../../platform/rate-limit.js";
import { validatorFrom } from "../../../platform/validation.js";
import { MAX_BATCH_BYTES } from "../segment/schema.js";
import { decodeBody, isPlainJson } from "./body.js";
import { CaptureBody, CaptureQuery, ConfigParams, RemoteConfig, Status } from "./schema.js";
import {
  type PostHogCall,
  eventsOf,
  ingestPostHog,
  keyOfBody,
  remoteConfig,
  remoteConfigScript,
} from "./service.js";

const tags = ["posthog"];
const OK = { status: 1 } as const;
/** The paths posthog-js and posthog-node post to, and PostHog's older ones. */
const CAPTURE_PATHS = ["/e", "/i/v0/e", "/capture", "/batch", "/track", "/engage"];

const KEY: KeySource = {
  read: (req) => {
    const key = keyOfBody(req.body);
    return typeof key === "string" ? key : undefined;
  },
  missing: "a project key is required: api_key in the body, or token in the event's properties",
  unknown: "unknown project API key",
};
const KEY_IN_PATH: KeySource = {
  read: (req) => (req.params as { token?: string }).token,
  unknown: "unknown project API key",
};

/** The body's shape (after the key, so a caller without one learns nothing); each event in the service. */
const validateShape = validatorFrom((body: unknown) => {
  eventsOf(body);
})();
/** The query's `compression`, `sent_at` and `_` are read as sent; other parameters are posthog-js's own. */
const anyQuery = (value: unknown) => ({ value });

/** The request's call for the service, taken out of the request (as Segment's routes do). */
function takeCall(req: FastifyRequest): PostHogCall {
  const call: PostHogCall = {
    body: req.body,
    rawBody: req.rawBody,
    rawBytes: (req as { decodedBytes?: number }).decodedBytes,
    sentAtQuery:
      (req.query as { sent_at?: unknown; _?: unknown }).sent_at ?? (req.query as { _?: unknown })._,
    sender: senderOf(req),
    userAgent: req.headers["user-agent"],
  };
  req.body = undefined;
  req.rawBody = undefined;
  return call;
}

/** PostHog's capture API (/e, /batch, …) and the remote config posthog-js loads first. */
export async function postHogRoutes(app: FastifyInstance): Promise<void> {
  // As /api/events and Segment's: per secret key, per public key and address.
  const limit = createLimit(app, { name: "posthog", max: app.config.rateLimits.events });
  const authenticate = app.requireProjectKey(KEY, limit);

  for (const base of CAPTURE_PATHS) {
    for (const path of [base, `${base}/`]) {
      // posthog-js posts text/plain or a form (no preflight); a preflight still gets its answer.
      app.options(path, { schema: { hide: true }, config: { publicCors: true } }, async (_req, reply) =>
        reply.code(204).send(),
      );
      app.post(
        path,
        {
          schema: {
            // Documented once each, without the trailing slash the SDKs add.
            hide: path !== "/batch" && path !== "/e",
            operationId: path === "/batch" ? "posthogBatch" : "posthogCapture",
            summary:
              path === "/batch"
                ? "Events in one request (PostHog batch; posthog-node)"
                : "Events from posthog-js (PostHog capture); the same on /e, /i/v0/e, /capture, /track, /engage",
            description:
              "PostHog's capture API: a team changes only api_host and the key. The project's public key svc_pk_… (or its secret key) as `api_key` or as `token` in the event's properties. See docs/posthog.md.",
            tags,
            security: [],
            errors: ["UNAUTHORIZED", "RATE_LIMITED"],
            querystring: CaptureQuery,
            body: CaptureBody,
            response: { 200: Status },
          },
          validatorCompiler: ({ httpPart }) => (httpPart === "body" ? validateShape : anyQuery),
          config: { allowTextPlain: true, publicCors: true, hotPath: true },
          compress: false,
          bodyLimit: MAX_BATCH_BYTES,
          preParsing: (req, _reply, payload, done) => {
            if (isPlainJson(req)) {
              (req as { decodedBytes?: number }).decodedBytes =
                Number(req.headers["content-length"]) || undefined;
              return done(null, payload);
            }
            decodeBody(payload, req, MAX_BATCH_BYTES).then((decoded) => {
              (req as { decodedBytes?: number }).decodedBytes = decoded.bytes;
              done(null, decoded.stream);
            }, done);
          },
          preValidation: authenticate,
        },
        async (req: FastifyRequest, reply: FastifyReply) => {
          const refused = await ingestPostHog(app.deps, projectOf(req), takeCall(req));
          return refused ? reply.code(refused.status).send(refused.body) : OK;
        },
      );
    }
  }

  const configGuard = [
    app.requireProjectKey(KEY_IN_PATH),
    async (req: FastifyRequest) => {
      // A page's source is public: a secret key there would be anyone's.
      if (callerOf(req, "projectKey").keyKind === "secret")
        throw new AppError(
          "FORBIDDEN",
          "posthog-js takes the project's public key svc_pk_…, never a secret key",
        );
    },
  ];
  for (const method of ["GET", "POST"] as const)
    app.route({
      method,
      url: "/array/:token/config",
      schema: {
        // posthog-js GETs it; the POST is the same answer, documented once.
        hide: method === "POST",
        operationId: "posthogRemoteConfig",
        summary: "posthog-js's remote config: capture and flags here, gzip-js, nothing else loaded",
        tags,
        params: ConfigParams,
        errors: ["UNAUTHORIZED", "FORBIDDEN"],
        response: { 200: RemoteConfig },
      },
      config: { publicCors: true, allowTextPlain: true },
      preHandler: configGuard,
      handler: async (req, reply) => {
        reply.header("cache-control", "private, max-age=300");
        return remoteConfig((req.params as { token: string }).token);
      },
    });
  app.get(
    "/array/:token/config.js",
    {
      schema: {
        operationId: "posthogRemoteConfigScript",
        summary: "The same remote config as the script posthog-js loads first",
        tags,
        params: ConfigParams,
        errors: ["UNAUTHORIZED", "FORBIDDEN"],
      },
      config: { publicCors: true },
      preHandler: configGuard,
    },
    async (req, reply) => {
      reply.header("cache-control", "private, max-age=300").type("application/javascript; charset=utf-8");
      return remoteConfigScript((req.params as { token: string }).token);
    },
  );
}
