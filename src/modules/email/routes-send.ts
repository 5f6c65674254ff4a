import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Static } from "@sinclair/typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from "fastify";
import { bearerOrApiKey } from "../../platform/auth/plugin.js";
import { sendLimitExceeded, TRANSACTIONAL_ERRORS, TxError } from "./errors.js";
import { sendsPerMinute } from "../workspace/service.js";
import { TX_KEY_PREFIX, type TxPrincipal } from "./keys.js";
import { SendBody, SendResultDoc, TransactionalError } from "./schema.js";
import { handleSend, type SendDeps } from "./send.js";
import { validateSendBody } from "./validate.js";
import { validatorFrom } from "../../platform/validation.js";

function withRequestId(body: string, requestId: string): string {
  const parsed = JSON.parse(body) as { error: Record<string, unknown> };
  return JSON.stringify({ error: { ...parsed.error, requestId } });
}

export type TxKeyResolver = (rawKey: string) => Promise<TxPrincipal | null>;

/** Reads `Authorization: Bearer svc_tx_…` or `X-Api-Key: svc_tx_…`; anything else is 401. */
/** The transactional key a send request was authenticated with (set in onRequest). */
function txCaller(req: FastifyRequest): TxPrincipal {
  if (req.principal?.kind !== "txKey") throw new Error("send route without its key check");
  return { keyId: req.principal.keyId, workspaceId: req.principal.workspaceId };
}

export async function authenticateTx(resolve: TxKeyResolver, req: FastifyRequest): Promise<TxPrincipal> {
  const raw = bearerOrApiKey(req, TX_KEY_PREFIX);
  if (!raw)
    throw new TxError(
      "unauthorized",
      "missing or invalid svc_tx credential: send Authorization: Bearer svc_tx_…",
    );
  const who = await resolve(raw);
  if (!who) throw new TxError("unauthorized", "invalid or revoked transactional API key");
  return who;
}

export const txSendRoutes: FastifyPluginAsyncTypebox<{ deps: SendDeps; resolveKey: TxKeyResolver }> = async (
  app,
  { deps, resolveKey },
) => {
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
      onRequest: [
        async (req: FastifyRequest) => {
          const who = await authenticateTx(resolveKey, req);
          req.principal = { kind: "txKey", ...who, project: null };
        },
        limit,
      ],
    },
    async (req, reply: FastifyReply) => {
      const res = await handleSend(deps, txCaller(req), {
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
