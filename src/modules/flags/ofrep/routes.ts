import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
import { type KeySource, projectOf } from "../../../platform/auth/plugin.js";
import { createLimit } from "../../../platform/rate-limit.js";
import { notModified } from "../routes-sdk.js";
import { MAX_EVAL_BODY_BYTES } from "../schema.js";
import { OFREP_ERRORS, OfrepBulk, OfrepEvaluation, OfrepFlagParams, OfrepRequest } from "./schema.js";
import { evaluateOfrepFlag, evaluateOfrepFlags } from "./service.js";

const tags = ["flags"];
const security = [{ publicKeyBearer: [] }];

/** The token of `Authorization: Bearer <token>`, if the request has one. */
function bearerOf(req: FastifyRequest): string | undefined {
  const auth = req.headers.authorization;
  if (typeof auth !== "string" || !/^bearer\s/i.test(auth)) return undefined;
  return auth.slice(7).trim() || undefined;
}

/**
 * The project's public key, the key of every flag SDK (remote evaluation's client key). The answers
 * hold nothing a secret key would add, and the browser provider is configured like the server's:
 * a secret key never needs to be in a flag client, so it is refused.
 */
const OFREP_KEY: KeySource = {
  read: bearerOf,
  missing: "send the project's public key as Authorization: Bearer svc_pk_…",
  unknown: "unknown key",
  publicOnly: "OFREP takes the project's public key svc_pk_… (the flag SDKs' key), never a secret key",
};

/** OpenFeature Remote Evaluation Protocol v1 over Lift's flags (docs/flags.md). */
export const ofrepRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const deps = app.deps;
  // As the other flag SDK endpoints: per key and client address, counted before the key is looked up.
  const limit = createLimit(app, {
    name: "ofrep",
    max: app.config.rateLimits.events,
    key: (req) => `${bearerOf(req) ?? ""}:${req.ip}`,
  });
  const guard = app.requireProjectKey(OFREP_KEY);
  // The key is a header: checked before the body, so a caller without one learns nothing from it.
  const preValidation = limit ? [limit, guard] : [guard];
  const config = { publicCors: true, errorFormat: OFREP_ERRORS };

  // Browsers preflight the providers' requests (JSON, Authorization, If-None-Match).
  app.options("/ofrep/v1/*", { schema: { hide: true }, config: { publicCors: true } }, async (_req, reply) =>
    reply.code(204).send(),
  );

  app.post(
    "/ofrep/v1/evaluate/flags/:key",
    {
      schema: {
        operationId: "ofrepEvaluateFlag",
        summary: "OpenFeature (OFREP): one flag's value for this context (public key as Bearer)",
        description:
          "The value Lift's remote evaluation gives this context. 404 FLAG_NOT_FOUND for an unknown " +
          "key, 400 INVALID_CONTEXT for a context that is not valid. See docs/flags.md.",
        security,
        errors: ["UNAUTHORIZED", "RATE_LIMITED", "FLAG_NOT_FOUND"],
        params: OfrepFlagParams,
        body: OfrepRequest,
        response: { 200: OfrepEvaluation },
        tags,
      },
      bodyLimit: MAX_EVAL_BODY_BYTES,
      config,
      preValidation,
    },
    async (req) => evaluateOfrepFlag(deps, projectOf(req), req.params.key, req.body.context),
  );

  app.post(
    "/ofrep/v1/evaluate/flags",
    {
      schema: {
        operationId: "ofrepEvaluateFlags",
        summary: "OpenFeature (OFREP): every flag's value for this context (public key as Bearer; ETag, 304)",
        description:
          "Every flag of the project as Lift's remote evaluation gives it to this context. The ETag is " +
          "of the answer: If-None-Match with it gets 304 while the answer is the same. See docs/flags.md.",
        security,
        errors: ["UNAUTHORIZED", "RATE_LIMITED"],
        body: OfrepRequest,
        response: { 200: OfrepBulk },
        tags,
      },
      bodyLimit: MAX_EVAL_BODY_BYTES,
      config,
      preValidation,
    },
    async (req, reply) => {
      const { body, etag } = await evaluateOfrepFlags(deps, projectOf(req), req.body.context);
      // The browser provider reads the ETag of a cross-origin answer.
      reply.header("etag", etag).header("access-control-expose-headers", "etag");
      // No body (the schema declares none for 304, so the typed reply has no 304 to pick).
      if (notModified(req, etag)) return (reply as FastifyReply).code(304).send();
      return reply.type("application/json; charset=utf-8").send(body as never);
    },
  );
};
