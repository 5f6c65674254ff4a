import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Static } from "@sinclair/typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from "fastify";
import { callerOf } from "../../platform/auth/plugin.js";
import type { TransactionalKeyLookup } from "../../platform/auth/principal.js";
import { sendLimitExceeded, TRANSACTIONAL_ERRORS } from "./schema.js";
import { sendsPerMinute } from "../workspace/service.js";
import { SendBody, SendResultDoc, TransactionalError } from "./schema.js";
import { handleSend, type SendDeps } from "./send.js";
import { validateSendBody } from "./validate.js";
import { validatorFrom } from "../../platform/validation.js";

function withRequestId(body: string, requestId: string): string {
  const parsed = JSON.parse(body) as { error: Record<string, unknown> };
  return JSON.stringify({ error: { ...parsed.error, requestId } });
}

export const txSendRoutes: FastifyPluginAsyncTypebox<{
  deps: SendDeps;
  resolveKey: TransactionalKeyLookup;
}> = async (app, { deps, resolveKey }) => {
  const limit = sendRateLimit(app);
  app.post(
    "/api/v1/transactional/send",
    {
      config: { errorFormat: TRANSACTIONAL_ERRORS },
      schema: {
        operationId: "sendTransactionalEmail",
        errors: [
          "comm_type_mismatch",
          "missing_variables",
          "comm_not_found",
          "idempotency_key_mismatch",
          "idempotency_in_flight",
          "send_failed",
          "bounce",
          "suppressed",
          "rate_limited",
        ],
        tags: ["transactional"],
        summary: "Render and deliver one transactional email (inline or template shape)",
        body: SendBody,
        response: { 200: SendResultDoc, "4xx": TransactionalError },
      },
      // The schema's two shapes, compiled, with errors in the transactional format.
      validatorCompiler: validatorFrom(validateSendBody),
      // Authentication and the per-key limit run first, so a bad body never hides a 401 or 429.
      onRequest: [app.requireTransactionalKey(resolveKey), limit],
    },
    async (req, reply: FastifyReply) => {
      const res = await handleSend(deps, callerOf(req, "txKey"), {
        body: req.body as Static<typeof SendBody>,
        idempotencyKey: req.headers["idempotency-key"],
        mode: req.headers["x-svc-mode"],
      });
      if (res.replayed) reply.header("idempotent-replayed", "true");
      // A send that failed (stored for replays without one) answers with this request's id too.
      const body = res.status >= 400 ? withRequestId(res.body, req.id) : res.body;
      return reply.code(res.status).type("application/json; charset=utf-8").send(body);
    },
  );
};

/** The per-key limit; @fastify/rate-limit (Redis when configured) sets X-RateLimit-* on every response. */
function sendRateLimit(app: FastifyInstance): preHandlerAsyncHookHandler {
  const limitOf = sendsPerMinute(app.db);
  const caller = (req: FastifyRequest) => (req.principal?.kind === "txKey" ? req.principal : null);
  return app.rateLimit({
    timeWindow: 60_000,
    keyGenerator: (req: FastifyRequest) => `tx-send:${caller(req)?.keyId ?? req.ip}`,
    max: (req: FastifyRequest) => limitOf(caller(req)?.workspaceId ?? null),
    errorResponseBuilder: (_req, ctx) => sendLimitExceeded(ctx.max, ctx.after) as unknown as object,
  }) as preHandlerAsyncHookHandler;
}
