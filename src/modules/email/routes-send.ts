import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { Static } from "@sinclair/typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from "fastify";
import type { Tier } from "../../platform/auth/principal.js";
import { boundedCache } from "../../platform/cache.js";
import { getWorkspaceRef } from "../workspace/service.js";
import { bearerOrApiKey } from "../../platform/auth/plugin.js";
import { TxError } from "../../platform/errors.js";
import { TX_KEY_PREFIX, type TxPrincipal } from "./keys.js";
import { SendBody, SendResultDoc, TxErrorDoc } from "./schema.js";
import { handleSend, type SendDeps } from "./send.js";
import { validateSendBody } from "./validate.js";
import { validatorFrom } from "../../platform/validation.js";

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
  const limit = txRateLimit(app);
  app.post(
    "/api/v1/transactional/send",
    {
      config: { errorFormat: "transactional" },
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
        response: { 200: SendResultDoc, "4xx": TxErrorDoc },
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
      return reply.code(res.status).type("application/json; charset=utf-8").send(res.body);
    },
  );
};

/** Sends per minute per key by workspace plan tier (DESIGN.md). */
const TIER_SENDS_PER_MINUTE: Record<Tier, number> = {
  free: 60,
  starter: 300,
  pro: 1200,
  growth: 3000,
  scale: 12_000,
};

// A plan change takes effect within this delay; reading the tier on every send would add a query.
const TIER_TTL_MS = 5_000;

/** The per-key limit; @fastify/rate-limit (Redis when configured) sets X-RateLimit-* on every response. */
function txRateLimit(app: FastifyInstance): preHandlerAsyncHookHandler {
  const tiers = boundedCache<string, Tier>(10_000, TIER_TTL_MS);
  const tierOf = async (workspaceId: string): Promise<Tier> => {
    const hit = tiers.get(workspaceId);
    if (hit) return hit;
    const { tier } = await getWorkspaceRef(app.db, workspaceId);
    tiers.set(workspaceId, tier);
    return tier;
  };
  return app.rateLimit({
    timeWindow: 60_000,
    keyGenerator: (req: FastifyRequest) =>
      `tx-send:${req.principal?.kind === "txKey" ? req.principal.keyId : req.ip}`,
    max: async (req: FastifyRequest) =>
      req.principal?.kind === "txKey"
        ? TIER_SENDS_PER_MINUTE[await tierOf(req.principal.workspaceId)]
        : TIER_SENDS_PER_MINUTE.free,
    errorResponseBuilder: (_req, ctx) => {
      const err = new TxError(
        "rate_limited",
        `rate limit exceeded: ${ctx.max} sends per minute for this key; retry in ${ctx.after}`,
      );
      return err as unknown as object;
    },
  }) as preHandlerAsyncHookHandler;
}
