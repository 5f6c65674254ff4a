import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import type { FastifyReply, FastifyRequest } from "fastify";
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
      const entry = svc.cachedSdkPayload(deps, project.id) ?? (await svc.sdkPayload(deps, project.id));
      if (entry.remoteEvalOnly)
        throw new AppError(
          "FORBIDDEN",
          "this project serves flags by remote evaluation only: POST /api/eval/:clientKey (remoteEval: true)",
        );
      reply.headers(PAYLOAD_HEADERS).header("etag", entry.etag);
      // No body (the schema declares none for 304, so the typed reply has no 304 to pick).
      if (notModified(req, entry.etag)) return (reply as FastifyReply).code(304).send();
      reply.type("application/json; charset=utf-8");
      const encoding = encodingFor(req);
      if (!encoding) return reply.send(entry.bytes as never);
      // Compressed once per payload; the compression plugin passes an encoded answer through.
      return reply
        .header("content-encoding", encoding)
        .header("vary", "accept-encoding")
        .send((await entry.encoded(encoding)) as never);
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
      const { slot, entry } = await svc.admitStream(deps, project.id, req.ip);
      return openStream(req, reply, () => svc.flagStreams(deps).open(project.id, reply.raw, entry, slot));
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
