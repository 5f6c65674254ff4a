import type { TSchema } from "@sinclair/typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type KeySource, callerOf, projectOf, senderOf } from "../../../platform/auth/plugin.js";
import { AppError } from "../../../platform/errors.js";
import { readAnyBodyAsJson } from "../../../platform/http/bodies.js";
import { createLimit } from "../../../platform/rate-limit.js";
import { compileSchema, firstSchemaError, validatorFrom } from "../../../platform/validation.js";
import { decompress } from "../gzip.js";
import {
  BatchBody,
  BatchEnvelope,
  MAX_BATCH_BYTES,
  MAX_BATCH_MESSAGES,
  MAX_MESSAGE_BYTES,
  MESSAGE_SCHEMAS,
  type MessageType,
  Settings,
  SettingsParams,
  Success,
} from "./schema.js";
import { type SegmentCall, ingestSegment, segmentSettings } from "./service.js";

const tags = ["segment"];
const SUCCESS = { success: true } as const;
/** analytics.js posts to `<apiHost>/<first letter of the type>` (its segmentio plugin). */
const SHORT: Record<MessageType | "batch", string> = {
  track: "t",
  identify: "i",
  page: "p",
  screen: "s",
  group: "g",
  alias: "a",
  batch: "b",
};

const checkEnvelope = compileSchema(BatchEnvelope);
function validateEnvelope(body: unknown): void {
  if (checkEnvelope(body)) return;
  const { error, message } = firstSchemaError(checkEnvelope, "body");
  // Too many messages is a batch too large, as too many bytes (413, which the SDKs do not retry).
  if (error.keyword === "maxItems" && error.instancePath === "/batch")
    throw new AppError("PAYLOAD_TOO_LARGE", `body.batch holds more than ${MAX_BATCH_MESSAGES} messages`);
  throw new AppError("VALIDATION_ERROR", message);
}
function validateMessage(body: unknown): void {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new AppError("VALIDATION_ERROR", "body must be a JSON object");
}

/**
 * The write key: HTTP Basic with the key as user name and an empty password (Segment's SDKs), or
 * `writeKey` in the body (analytics.js sends both).
 */
function writeKeyOf(req: FastifyRequest): string | null {
  const auth = req.headers.authorization;
  if (auth && /^basic\s/i.test(auth)) {
    const decoded = Buffer.from(auth.slice(6).trim(), "base64").toString("utf8");
    const user = decoded.slice(0, decoded.includes(":") ? decoded.indexOf(":") : undefined);
    if (user) return user;
  }
  const key = (req.body as { writeKey?: unknown } | null | undefined)?.writeKey;
  return typeof key === "string" && key !== "" ? key : null;
}

const WRITE_KEY: KeySource = {
  read: writeKeyOf,
  missing: "a write key is required: HTTP Basic with the key as user name, or writeKey in the body",
  unknown: "unknown write key",
};

/** analytics.js's settings name the write key in the path. */
const WRITE_KEY_IN_PATH: KeySource = {
  read: (req) => (req.params as { writeKey?: string }).writeKey,
  unknown: "unknown write key",
};

/**
 * The request's call for the service, taken out of the request: the parsed body is not held while
 * its events commit (ingestSegment), so what is not stored dies young.
 */
function takeCall(req: FastifyRequest, type: MessageType | "batch"): SegmentCall {
  const call = {
    type,
    body: req.body,
    rawBody: req.rawBody,
    // The body's bytes as sent, when they are the text's (no compression): no need to count them.
    rawBytes:
      req.headers["content-encoding"] === undefined && req.headers["content-length"] !== undefined
        ? Number(req.headers["content-length"])
        : undefined,
    sender: senderOf(req),
    userAgent: req.headers["user-agent"],
  };
  req.body = undefined;
  req.rawBody = undefined;
  return call;
}

/** Segment's tracking API (/v1/…): the calls, analytics.js's short paths, and its settings. */
export async function segmentRoutes(app: FastifyInstance): Promise<void> {
  // As /api/events: per secret write key (a batch is one request), per public key and address.
  const limit = createLimit(app, { name: "segment", max: app.config.rateLimits.events });
  // Before validation (the body is parsed): a caller without a valid key learns nothing from it.
  const authenticate = app.requireProjectKey(WRITE_KEY, limit);
  // Segment's and RudderStack's servers read these bodies as JSON whatever they are labelled
  // (RudderStack's Node SDK sends gzipped JSON as a form). The key, never a cookie, authenticates
  // them, so the Content-Type has no CSRF role here. Added in this (encapsulated) plugin: /v1/* only.
  readAnyBodyAsJson(app);

  // Cross-origin calls carry Authorization, so browsers preflight them (the CORS plugin's
  // catch-all OPTIONS route does not carry publicCors).
  app.options("/v1/*", { schema: { hide: true }, config: { publicCors: true } }, async (_req, reply) =>
    reply.code(204).send(),
  );

  const route = (
    type: MessageType | "batch",
    path: string,
    body: TSchema,
    summary: string,
    short: boolean,
  ) => {
    const batch = type === "batch";
    app.post(
      path,
      {
        schema: {
          // analytics.js's short paths are the same calls, documented once under the long ones.
          hide: short,
          operationId: `segment${type[0]!.toUpperCase()}${type.slice(1)}`,
          summary,
          description: `Segment's HTTP API; analytics.js posts the same to /v1/${SHORT[type]}. Write key by HTTP Basic (user name) or \`writeKey\` in the body; the body is read as JSON whatever its Content-Type, gzip accepted. See docs/segment.md.`,
          tags,
          security: [{ segmentWriteKey: [] }],
          errors: ["UNAUTHORIZED", "RATE_LIMITED"],
          body,
          response: { 200: Success },
        },
        // The envelope here; each message in the service, so errors name it.
        validatorCompiler: validatorFrom(batch ? validateEnvelope : validateMessage),
        config: { allowTextPlain: true, jsonWhateverType: true, publicCors: true, hotPath: true },
        compress: false,
        bodyLimit: batch ? MAX_BATCH_BYTES : MAX_MESSAGE_BYTES,
        preParsing: (req, _reply, payload, done) => {
          try {
            done(
              null,
              decompress(
                payload,
                req.headers["content-encoding"],
                batch ? MAX_BATCH_BYTES : MAX_MESSAGE_BYTES,
              ),
            );
          } catch (err) {
            done(err as Error);
          }
        },
        preValidation: authenticate,
      },
      async (req: FastifyRequest, reply: FastifyReply) => {
        const refused = await ingestSegment(app.deps, projectOf(req), takeCall(req, type));
        return refused ? reply.code(refused.status).send(refused.body) : SUCCESS;
      },
    );
  };
  const calls: [MessageType, string][] = [
    ["track", "Record an event (Segment track)"],
    ["identify", "Link a visitor to a lead and set its properties (Segment identify)"],
    ["page", "Record a pageview, a web visit (Segment page)"],
    ["screen", "Record a screen view, a visit (Segment screen)"],
    ["group", "Store a group's traits on the lead (Segment group)"],
    ["alias", "Link a visitor's history to a lead (Segment alias)"],
  ];
  for (const [type, summary] of calls) {
    route(type, `/v1/${type}`, MESSAGE_SCHEMAS[type], summary, false);
    route(type, `/v1/${SHORT[type]}`, MESSAGE_SCHEMAS[type], summary, true);
  }
  const batchSummary = "Messages of any type in one request (Segment batch)";
  route("batch", "/v1/batch", BatchBody, batchSummary, false);
  route("batch", `/v1/${SHORT.batch}`, BatchBody, batchSummary, true);

  app.get(
    "/v1/projects/:writeKey/settings",
    {
      schema: {
        operationId: "segmentSettings",
        summary: "analytics.js's settings: send every call to this server, load nothing from a CDN",
        tags,
        params: SettingsParams,
        errors: ["UNAUTHORIZED", "FORBIDDEN"],
        response: { 200: Settings },
      },
      config: { publicCors: true },
      preHandler: [
        app.requireProjectKey(WRITE_KEY_IN_PATH),
        async (req) => {
          // A page's source is public: a secret key there would be anyone's.
          if (callerOf(req, "projectKey").keyKind === "secret")
            throw new AppError(
              "FORBIDDEN",
              "analytics.js takes the project's public key svc_pk_…, never a secret key",
            );
        },
      ],
    },
    async (req, reply) => {
      // Where the browser reached this server (X-Forwarded-* behind a proxy): the calls go there.
      reply.header("cache-control", "private, max-age=300");
      return segmentSettings((req.params as { writeKey: string }).writeKey, {
        protocol: req.protocol,
        host: req.host,
      });
    },
  );
}
