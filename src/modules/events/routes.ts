import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "@sinclair/typebox";
import { AppError } from "../../platform/errors.js";
import { createLimit } from "../../platform/rate-limit.js";
import type { ProjectRef } from "../../platform/auth/principal.js";
import { isBotAgent } from "./bots.js";
import { decompress } from "./gzip.js";
import { DEFAULT_RECENT_EVENTS, recentEvents } from "./recent.js";
import { RecentEvent, RecentQuery } from "./schema.js";
import { resolveProjectKey, writeEvents, writerFor } from "./service.js";
import { FieldError, readBatch, readEnvelope, toIncoming } from "./validate.js";

export const MAX_BODY_BYTES = 1024 * 1024;

const EventFields = {
  type: Type.String({ description: "pageview, click, form_submit or a custom name" }),
  url: Type.String({ description: "full URL of the event" }),
  data: Type.Optional(Type.Object({}, { additionalProperties: true })),
  referrer: Type.Optional(Type.String()),
  timestamp: Type.Optional(Type.String({ description: "ISO 8601; defaults to receipt time" })),
};
const ProjectKey = Type.String({
  description: "the public key svc_pk_… (web pages) or a secret API key svc_key_… (servers)",
});
const SnippetEvent = Type.Object(
  { projectKey: ProjectKey, visitorId: Type.String(), ...EventFields },
  {
    description:
      "One event from a web page (the snippet). Counted as a visit unless the request's User-Agent is a crawler's or a headless browser's.",
  },
);
const BatchBody = Type.Object(
  {
    projectKey: ProjectKey,
    userId: Type.Optional(
      Type.String({ description: "lead id applied to every event; the lead is created when new" }),
    ),
    visitorId: Type.Optional(Type.String({ description: "default visitorId for events without one" })),
    events: Type.Array(
      Type.Object({
        visitorId: Type.Optional(Type.String()),
        ...EventFields,
        context: Type.Optional(
          Type.Object({
            userAgent: Type.Optional(
              Type.String({
                description:
                  "the end user's User-Agent, forwarded by an SDK; a crawler's flags the event as a bot",
              }),
            ),
          }),
        ),
      }),
      { maxItems: 1000 },
    ),
  },
  {
    description:
      "Server (SDK) events: never sessions or touchpoints, never judged by the request's User-Agent. Without visitorId and userId an event is anonymous.",
  },
);
const ItemError = Type.Object({ index: Type.Integer(), code: Type.String(), message: Type.String() });
const Received = Type.Object({ received: Type.Integer(), errors: Type.Optional(Type.Array(ItemError)) });

declare module "fastify" {
  interface FastifyRequest {
    eventsProject?: ProjectRef;
  }
}

/** POST /api/events: snippet or batch format, JSON or text/plain (sendBeacon), optionally gzip. */
export async function eventRoutes(app: FastifyInstance): Promise<void> {
  const limit = createLimit(app, {
    name: "events",
    max: app.config.rateLimits.events,
    key: (req) => (req.body as { projectKey: string }).projectKey,
  });
  const authenticate = async (req: FastifyRequest) => {
    const env = readEnvelope(req.body);
    const project = await resolveProjectKey(app, env.projectKey);
    if (!project) throw new AppError("UNAUTHORIZED", "unknown projectKey");
    req.eventsProject = project;
  };
  app.decorateRequest("eventsProject", undefined);
  // A child plugin's onClose runs before the root's, which closes the database: flush first.
  const writer = writerFor(app);
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
      return recentEvents(app.db, req.project, limit ?? DEFAULT_RECENT_EVENTS);
    },
  );

  app.post(
    "/api/events",
    {
      schema: {
        operationId: "ingestEvents",
        errors: ["UNAUTHORIZED", "RATE_LIMITED"],
        tags: ["events"],
        summary: "Ingest tracking events (public; projectKey in the body)",
        body: Type.Union([SnippetEvent, BatchBody]),
        response: { 200: Received },
      },
      // Validation is done by hand: a batch keeps its valid events and reports the invalid ones.
      validatorCompiler: () => () => true,
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
      preHandler: limit ? [authenticate, limit] : [authenticate],
    },
    async (req: FastifyRequest, reply: FastifyReply) => {
      const body = req.body as Record<string, unknown>;
      const project = req.eventsProject!;
      const now = Date.now();
      if (body.events === undefined) {
        let event: ReturnType<typeof toIncoming>;
        try {
          event = toIncoming(body, "body.", {}, now);
        } catch (err) {
          if (err instanceof FieldError) throw new AppError("VALIDATION_ERROR", err.message);
          throw err;
        }
        // A snippet event is judged by the request's User-Agent (the browser that ran the snippet).
        event.isBot = isBotAgent(req.headers["user-agent"]);
        return { received: await writeEvents(app, project, [event], "web") };
      }
      const leadId = (body.userId as string | undefined) ?? null;
      const visitorId = (body.visitorId as string | undefined) ?? null;
      // Batch events come from servers: the request's User-Agent is the server's, never judged.
      const { valid, errors } = readBatch(body.events as unknown[], { leadId, visitorId, batch: true }, now);
      if (valid.length === 0) {
        return reply.code(400).send({
          error: `no valid event in the batch: ${errors[0]!.message}`,
          code: "VALIDATION_ERROR",
          status: 400,
          errors,
        });
      }
      return { received: await writeEvents(app, project, valid, "server"), errors };
    },
  );
}
