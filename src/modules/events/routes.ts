import type { FastifyInstance } from "fastify";
import { Type } from "@sinclair/typebox";
import { createLimit } from "../../platform/rate-limit.js";
import { decompress } from "./gzip.js";
import { DEFAULT_RECENT_EVENTS, projectHasEvents, recentEvents, writerFor } from "../event-store/service.js";
import {
  type BatchEnvelopeBody,
  EventsStatus,
  IngestBody,
  Received,
  RecentEvent,
  RecentQuery,
  type SnippetEventBody,
} from "./schema.js";
import { ingest } from "./service.js";
import { validateIngestBody } from "./validate.js";
import { bodyProjectKey, projectOf, senderOf } from "../../platform/auth/plugin.js";
import { validatorFrom } from "../../platform/validation.js";

export const MAX_BODY_BYTES = 1024 * 1024;

/** POST /api/events: snippet or batch format, JSON or text/plain (sendBeacon), optionally gzip. */
export async function eventRoutes(app: FastifyInstance): Promise<void> {
  // Per secret key (the spec: a batch is one request), per public key and address (requireProjectKey).
  const limit = createLimit(app, { name: "events", max: app.config.rateLimits.events });
  // A child plugin's onClose runs before the root's, which closes the database: flush first.
  const writer = writerFor(app.deps);
  app.addHook("onClose", async () => writer.close());

  // Cross-origin fetch() with application/json sends a preflight; answer it on this public route
  // (the CORS plugin's catch-all OPTIONS route does not carry this route's publicCors config).
  app.options("/api/events", { schema: { hide: true }, config: { publicCors: true } }, async (_req, reply) =>
    reply.code(204).send(),
  );

  app.get(
    "/api/events/recent",
    {
      schema: {
        tags: ["events"],
        summary: "The project's newest events, newest first (a live view; bots included and flagged)",
        querystring: RecentQuery,
        response: { 200: Type.Array(RecentEvent) },
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => {
      const { limit } = req.query as { limit?: number };
      return recentEvents(app.db, projectOf(req), limit ?? DEFAULT_RECENT_EVENTS);
    },
  );

  app.get(
    "/api/events/status",
    {
      schema: {
        operationId: "getEventsStatus",
        tags: ["events"],
        summary: "Whether the project has received any event yet (the dashboard's first run polls it)",
        response: { 200: EventsStatus },
      },
      preHandler: app.requireProject("read"),
    },
    async (req) => ({ hasEvents: await projectHasEvents(app.db, projectOf(req)) }),
  );

  app.post(
    "/api/events",
    {
      schema: {
        operationId: "ingestEvents",
        errors: ["UNAUTHORIZED", "RATE_LIMITED"],
        tags: ["events"],
        summary: "Ingest tracking events (public; projectKey in the body)",
        body: IngestBody,
        response: { 200: Received },
      },
      // The schema's parts, compiled: a batch's envelope here and each event alone in the handler,
      // so a batch keeps its valid events and reports the invalid ones.
      validatorCompiler: validatorFrom(validateIngestBody),
      config: { allowTextPlain: true, publicCors: true, hotPath: true },
      // Answers are a few bytes: never worth compressing, and the hook costs on every event.
      compress: false,
      bodyLimit: MAX_BODY_BYTES,
      preParsing: (req, _reply, payload, done) => {
        try {
          done(null, decompress(payload, req.headers["content-encoding"], MAX_BODY_BYTES));
        } catch (err) {
          done(err as Error);
        }
      },
      // After validation: the key is the validated body's.
      preHandler: app.requireProjectKey(bodyProjectKey, limit),
    },
    async (req) =>
      ingest(
        app.deps,
        { project: projectOf(req), sender: senderOf(req), userAgent: req.headers["user-agent"] },
        req.body as SnippetEventBody | BatchEnvelopeBody,
      ),
  );
}
