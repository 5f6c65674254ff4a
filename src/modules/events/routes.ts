import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "@sinclair/typebox";
import { isbot } from "isbot";
import { AppError } from "../../platform/errors.js";
import { createLimit } from "../../platform/rate-limit.js";
import type { ProjectRef } from "../../platform/auth/principal.js";
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
const SnippetEvent = Type.Object({ projectKey: Type.String(), visitorId: Type.String(), ...EventFields });
const BatchBody = Type.Object({
  projectKey: Type.String(),
  userId: Type.Optional(Type.String({ description: "lead id applied to every event" })),
  visitorId: Type.Optional(Type.String({ description: "default visitorId for events without one" })),
  events: Type.Array(Type.Object({ visitorId: Type.Optional(Type.String()), ...EventFields }), {
    maxItems: 1000,
  }),
});
const ItemError = Type.Object({ index: Type.Integer(), code: Type.String(), message: Type.String() });
const Received = Type.Object({ received: Type.Integer(), errors: Type.Optional(Type.Array(ItemError)) });

// isbot runs a large regex; user agents repeat, so remember recent answers.
const botCache = new Map<string, boolean>();
function isBotAgent(ua: string | undefined): boolean {
  if (!ua) return false;
  let v = botCache.get(ua);
  if (v === undefined) {
    v = isbot(ua);
    if (botCache.size >= 5000) botCache.clear();
    botCache.set(ua, v);
  }
  return v;
}

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
        tags: ["events"],
        summary: "Ingest tracking events (public; projectKey in the body)",
        body: Type.Union([SnippetEvent, BatchBody]),
        response: { 200: Received },
      },
      // Validation is done by hand: a batch keeps its valid events and reports the invalid ones.
      validatorCompiler: () => () => true,
      config: { allowTextPlain: true, publicCors: true },
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
      const isBot = isBotAgent(req.headers["user-agent"]);
      const now = Date.now();
      if (body.events === undefined) {
        let event: ReturnType<typeof toIncoming>;
        try {
          event = toIncoming(body, "body.", {}, now);
        } catch (err) {
          if (err instanceof FieldError) throw new AppError("VALIDATION_ERROR", err.message);
          throw err;
        }
        return { received: await writeEvents(app, project, [event], isBot) };
      }
      const leadId = (body.userId as string | undefined) ?? null;
      const visitorId = (body.visitorId as string | undefined) ?? null;
      const { valid, errors } = readBatch(body.events as unknown[], { leadId, visitorId }, now);
      if (valid.length === 0) {
        return reply.code(400).send({
          error: `no valid event in the batch: ${errors[0]!.message}`,
          code: "VALIDATION_ERROR",
          status: 400,
          errors,
        });
      }
      return { received: await writeEvents(app, project, valid, isBot), errors };
    },
  );
}
