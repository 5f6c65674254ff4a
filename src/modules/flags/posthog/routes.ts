import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import { isKeyOf } from "../../../platform/auth/keys.js";
import { type KeySource, projectOf } from "../../../platform/auth/plugin.js";
import { AppError } from "../../../platform/errors.js";
import { createLimit } from "../../../platform/rate-limit.js";
import { decodePostHogBody, isPlainPostHogJson } from "../../events/service.js";
import { MAX_EVAL_BODY_BYTES } from "../schema.js";
import { notModified } from "../routes-sdk.js";
import {
  DefinitionsAnswer,
  DefinitionsQuery,
  FlagsAnswer,
  LegacyFlagsAnswer,
  PostHogFlagsBody,
  PostHogFlagsQuery,
} from "./schema.js";
import { evaluatePostHogFlags, formatOf, postHogDefinitions } from "./service.js";

const tags = ["posthog"];

/** The body's `token` (posthog-js, posthog-node) or `api_key` (older SDKs), if it names one. */
function keyOf(req: FastifyRequest): string | undefined {
  const body = req.body as { token?: unknown; api_key?: unknown } | null | undefined;
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const key = body.token ?? body.api_key;
  return typeof key === "string" ? key : undefined;
}

/**
 * The project's public key, as the capture API and posthog-js take it; the secret key too, for
 * posthog-node, whose one client captures and evaluates with the same key. The key is in the body
 * (never in a URL), and the answer holds nothing a secret key would add: each flag's value for the
 * person the caller names, exactly what the public key gets.
 */
const KEY: KeySource = {
  read: keyOf,
  missing: "a project key is required: token (or api_key) in the body",
  unknown: "unknown project API key",
};

/** `Authorization: Bearer <key>`: the personal API key PostHog's server SDKs send for definitions. */
function bearerOf(req: FastifyRequest): string | undefined {
  const auth = req.headers.authorization;
  return typeof auth === "string" && /^bearer /i.test(auth) ? auth.slice(7).trim() : undefined;
}

/**
 * The definitions hold every mappable flag's rules (targeted property values included), which a
 * page must never see: only the project's secret key, as PostHog's personal API key, gets them.
 */
const PERSONAL_KEY: KeySource = {
  read: bearerOf,
  missing: "the project's secret key is the personal API key: Authorization: Bearer svc_key_…",
  unknown: "unknown secret key",
};
async function secretOnly(req: FastifyRequest) {
  const key = bearerOf(req);
  if (key && !isKeyOf("secret", key))
    throw new AppError(
      "UNAUTHORIZED",
      "flag definitions need the project's secret key (svc_key_…), not its public key",
    );
}

/** PostHog's remote flag evaluation: posthog-js's and posthog-node's `/flags`, older SDKs' `/decide`. */
export const postHogFlagRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const deps = app.deps;
  // As the other flag SDK endpoints: per key and client address, counted before the key is looked up.
  const limit = createLimit(app, {
    name: "posthog-flags",
    max: app.config.rateLimits.events,
    key: (req) => `${(keyOf(req) ?? "").slice(0, 200)}:${req.ip}`,
  });
  const guard = app.requireProjectKey(KEY);
  // The key is in the body: checked before the body's schema, so a caller without one learns nothing.
  const preValidation = limit ? [limit, guard] : [guard];

  for (const [kind, base] of [
    ["flags", "/flags"],
    ["decide", "/decide"],
  ] as const) {
    for (const path of [base, `${base}/`]) {
      // posthog-js posts gzip as text/plain (no preflight); a preflight still gets its answer.
      app.options(path, { schema: { hide: true }, config: { publicCors: true } }, async (_req, reply) =>
        reply.code(204).send(),
      );
      app.post(
        path,
        {
          schema: {
            // Documented once each, without the trailing slash the SDKs add.
            hide: path !== base,
            operationId: kind === "flags" ? "posthogFlags" : "posthogDecide",
            summary:
              kind === "flags"
                ? "PostHog's remote flag evaluation (posthog-js, posthog-node): each flag for this person"
                : "PostHog's legacy /decide: each flag's value and payload for this person",
            description:
              "Lift's remote evaluation (the same as POST /api/eval/:clientKey) in PostHog's format: " +
              "`?v=2` on /flags (`?v=4` on /decide) answers each flag's details, older versions its " +
              "value and payload. The project's public key svc_pk_… (or its secret key) as `token` " +
              'or `api_key`. See docs/posthog.md, "Feature flags".',
            security: [],
            errors: ["UNAUTHORIZED", "RATE_LIMITED"],
            querystring: PostHogFlagsQuery,
            body: PostHogFlagsBody,
            response: { 200: kind === "flags" ? FlagsAnswer : LegacyFlagsAnswer },
            tags,
          },
          bodyLimit: MAX_EVAL_BODY_BYTES,
          config: { allowTextPlain: true, publicCors: true },
          preParsing: (req, _reply, payload, done) => {
            if (isPlainPostHogJson(req)) return done(null, payload);
            decodePostHogBody(payload, req, MAX_EVAL_BODY_BYTES).then(
              (decoded) => done(null, decoded.stream),
              done,
            );
          },
          preValidation,
        },
        async (req, reply) => {
          const format = formatOf(kind, req.query.v);
          const body = await evaluatePostHogFlags(deps, projectOf(req), req.body, format, req.id);
          return reply.type("application/json; charset=utf-8").send(body as never);
        },
      );
    }
  }

  // Local evaluation: posthog-node's definitions path, and the one PostHog's other server SDKs poll.
  const defLimit = createLimit(app, {
    name: "posthog-definitions",
    max: app.config.rateLimits.events,
    key: (req) => `${(bearerOf(req) ?? "").slice(0, 200)}:${req.ip}`,
  });
  const defGuard = app.requireProjectKey(PERSONAL_KEY);
  const defPre = defLimit ? [defLimit, secretOnly, defGuard] : [secretOnly, defGuard];
  for (const path of ["/flags/definitions", "/api/feature_flag/local_evaluation"]) {
    app.get(
      path,
      {
        schema: {
          operationId: path === "/flags/definitions" ? "posthogFlagDefinitions" : "posthogLocalEvaluation",
          summary: "PostHog's local-evaluation flag definitions (posthog-node and other server SDKs)",
          description:
            "The project's flags that PostHog's SDKs evaluate exactly as Lift does, in PostHog's definition " +
            "format; the others are left out, so the SDK asks /flags for them. The project's secret key " +
            'as `Authorization: Bearer` (PostHog\'s personal API key). ETag, 304. docs/posthog.md, "Local evaluation".',
          // The secret key as Authorization: Bearer, as PostHog's SDKs send their personal API key.
          security: [{ projectBearer: [] }],
          errors: ["UNAUTHORIZED", "RATE_LIMITED"],
          querystring: DefinitionsQuery,
          response: { 200: DefinitionsAnswer },
          tags,
        },
        preHandler: defPre,
      },
      async (req, reply) => {
        const { body, etag } = await postHogDefinitions(deps, projectOf(req));
        reply.header("etag", etag).header("cache-control", "no-cache");
        if (notModified(req, etag)) return (reply as FastifyReply).code(304).send();
        return reply.type("application/json; charset=utf-8").send(body as never);
      },
    );
  }
};
