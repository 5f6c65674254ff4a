import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { MAX_KEY_LENGTH, isKeyOf } from "../../platform/auth/keys.js";
import type { ProjectRef } from "../../platform/auth/principal.js";
import { type KeySource, projectOf } from "../../platform/auth/plugin.js";
import { AppError } from "../../platform/errors.js";
import { createLimit } from "../../platform/rate-limit.js";
import { ClientKeyParams, FeaturesPayload, MAX_EVAL_BODY_BYTES, RemoteEvalBody } from "./schema.js";
import * as svc from "./service.js";

const tags = ["flags"];
// Cross-origin readers (browser SDKs) may read these; the SDK turns streaming on by x-sse-support.
const EXPOSE = "x-sse-support, etag";
const PAYLOAD_HEADERS = {
  // Revalidated on every use (a 304 is cheap), so a kill switch is never cached away.
  "cache-control": "no-cache",
  "x-sse-support": "enabled",
  "access-control-expose-headers": EXPOSE,
};

/** Strong validator match per RFC 9110 (a list or `*`); an SDK sends back the one ETag it got. */
export function notModified(req: FastifyRequest, etag: string): boolean {
  const inm = req.headers["if-none-match"];
  if (!inm) return false;
  if (inm === etag || inm === "*") return true;
  return inm.split(",").some((t) => t.trim().replace(/^W\//, "") === etag);
}

/** The encoding to send: brotli, then gzip, when the client takes it (else the plain bytes). */
function encodingFor(req: FastifyRequest): "br" | "gzip" | undefined {
  const accept = req.headers["accept-encoding"];
  if (typeof accept !== "string") return undefined;
  if (/\bbr\b/.test(accept)) return "br";
  if (/\bgzip\b/.test(accept)) return "gzip";
  return undefined;
}

/**
 * The client key in the URL is the project's public key. A secret key there is refused (401) so
 * that no integration learns to put secrets in URLs, which end up in logs, proxies and browser
 * history.
 */
const CLIENT_KEY: KeySource = {
  read: (req) => (req.params as { clientKey?: string }).clientKey,
  unknown: "unknown client key",
  publicOnly: "the client key is the project's public key (svc_pk_…); a secret key does not belong in a URL",
};

/**
 * Whether the request also carries the client key's project's secret key (`Authorization: Bearer
 * svc_key_…`, GrowthBook's `apiHostRequestHeaders`): a server's SDK, which may get what only a
 * server may hold. Any other key there is a 401: a typo must not quietly serve the public payload.
 */
async function isServerCaller(
  app: FastifyInstance,
  req: FastifyRequest,
  project: ProjectRef,
): Promise<boolean> {
  const auth = req.headers.authorization;
  if (auth === undefined) return false;
  const token = /^bearer /i.test(auth) ? auth.slice(7).trim() : "";
  const key =
    isKeyOf("secret", token) && token.length <= MAX_KEY_LENGTH
      ? await app.principalResolver.resolveApiKey(token)
      : null;
  if (key?.projectId !== project.id)
    throw new AppError(
      "UNAUTHORIZED",
      "Authorization takes the secret key of the client key's project (Bearer svc_key_…)",
    );
  return true;
}

/** GrowthBook's SDK endpoints, public: the project is the client key's (`CLIENT_KEY`). */
export const flagSdkRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const deps = app.deps;
  // Per client key and address: every page view of a site fetches the payload, so a limit per
  // key alone would be one site's traffic; one address past it is a loop or an attack.
  const limit = createLimit(app, {
    name: "flags-sdk",
    max: app.config.rateLimits.events,
    key: (req) => `${(req.params as { clientKey?: string }).clientKey ?? ""}:${req.ip}`,
  });
  // The limit first, as it counts every request for a key, known or not.
  const guard = app.requireProjectKey(CLIENT_KEY);
  const preHandler = limit ? [limit, guard] : [guard];

  app.get(
    "/api/features/:clientKey",
    {
      schema: {
        operationId: "getSdkFeatures",
        summary: "GrowthBook SDK payload of the project's flags (public; ETag, 304)",
        description:
          "With `Authorization: Bearer <secret key>` of the same project as well (a server SDK's " +
          "`apiHostRequestHeaders`), the server payload: cohort tests on `idHash`/`leadIdHash` with " +
          "members as sha256(targetingSalt + id) in `savedGroups` (docs/flags.md).",
        errors: ["UNAUTHORIZED", "FORBIDDEN", "RATE_LIMITED"],
        params: ClientKeyParams,
        response: { 200: FeaturesPayload },
        tags,
      },
      config: { publicCors: true, hotPath: true },
      preHandler,
    },
    async (req, reply) => {
      const project = projectOf(req);
      const server = await isServerCaller(app, req, project);
      const entry = svc.cachedSdkPayload(deps, project.id) ?? (await svc.sdkPayload(deps, project.id));
      if (entry.remoteEvalOnly)
        throw new AppError(
          "FORBIDDEN",
          "this project serves flags by remote evaluation only: POST /api/eval/:clientKey (remoteEval: true)",
        );
      // A server (the secret key as well) gets cohorts in hashed form; nobody else gets them at all.
      const answer = server ? await svc.serverPayload(deps, project, entry) : entry;
      reply.headers(PAYLOAD_HEADERS).header("etag", answer.etag);
      if (server) reply.header("cache-control", "private, no-cache").header("vary", "authorization");
      // No body (the schema declares none for 304, so the typed reply has no 304 to pick).
      if (notModified(req, answer.etag)) return (reply as FastifyReply).code(304).send();
      reply.type("application/json; charset=utf-8");
      const encoding = encodingFor(req);
      if (!encoding) return reply.send(answer.bytes as never);
      // Compressed once per payload; the compression plugin passes an encoded answer through.
      return reply
        .header("content-encoding", encoding)
        .header("vary", server ? "accept-encoding, authorization" : "accept-encoding")
        .send((await answer.encoded(encoding)) as never);
    },
  );

  app.get(
    "/sub/:clientKey",
    {
      schema: {
        operationId: "streamSdkFeatures",
        summary: "Server-Sent Events: a `features` event with the new payload on every change (public)",
        errors: ["UNAUTHORIZED", "RATE_LIMITED", "UNAVAILABLE"],
        params: ClientKeyParams,
        response: {
          200: {
            description:
              "text/event-stream: `event: features` (data: the payload JSON) or `features-updated`",
            content: { "text/event-stream": { schema: Type.String() } },
          },
        },
        tags,
      },
      config: { publicCors: true, hotPath: true },
      preHandler,
    },
    async (req, reply) => {
      const project = projectOf(req);
      // A server's SDK refetches on each change, with its secret key: the payload it holds is the
      // server payload, which a pushed (public) payload would replace.
      const refetch = await isServerCaller(app, req, project);
      const { slot, entry } = await svc.admitStream(deps, project.id, req.ip);
      return openStream(req, reply, () =>
        svc.flagStreams(deps).open(project.id, reply.raw, entry, slot, { refetch }),
      );
    },
  );

  // Preflight of the SDK's cross-origin JSON POST, answered with this route's open CORS.
  app.options(
    "/api/eval/:clientKey",
    { schema: { hide: true }, config: { publicCors: true } },
    async (_req, reply) => reply.code(204).send(),
  );
  app.post(
    "/api/eval/:clientKey",
    {
      schema: {
        operationId: "remoteEvalSdkFeatures",
        summary: "GrowthBook remote evaluation: each flag's value for these attributes, no rules (public)",
        errors: ["UNAUTHORIZED", "RATE_LIMITED"],
        params: ClientKeyParams,
        body: RemoteEvalBody,
        response: { 200: FeaturesPayload },
        tags,
      },
      bodyLimit: MAX_EVAL_BODY_BYTES,
      config: { publicCors: true },
      preHandler,
    },
    async (req, reply) => {
      const project = projectOf(req);
      const evaluated = await svc.remoteEvaluate(deps, project, req.body);
      reply.header("x-sse-support", "enabled").header("access-control-expose-headers", EXPOSE);
      return reply.type("application/json; charset=utf-8").send(JSON.stringify(evaluated) as never);
    },
  );
};

/** Hands the response over to the stream registry after writing the event-stream headers. */
function openStream(req: FastifyRequest, reply: FastifyReply, start: () => void): FastifyReply {
  reply.hijack();
  req.raw.socket.setNoDelay(true);
  req.raw.socket.setKeepAlive(true);
  // hijack() skips Fastify's header writing: CORS is written here, with the security headers
  // already on the raw response.
  reply.raw.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    "x-accel-buffering": "no",
    "access-control-allow-origin": "*",
  });
  // The headers go out with this first line, also when there is no payload to send yet.
  reply.raw.write(": lift flags stream\n\n");
  start();
  return reply;
}
