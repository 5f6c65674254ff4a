import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { Type } from "@sinclair/typebox";
import { isbot } from "isbot";
import { callerOf } from "../../platform/auth/plugin.js";
import type { TransactionalKeyLookup } from "../../platform/auth/principal.js";
import type { DbOrTrx } from "../../platform/db/index.js";
import { AppError } from "../../platform/errors.js";
import { addEvent, getSendRow, suppress } from "./records.js";
import { recordOutcome } from "./records.js";
import { PIXEL, type Tracker } from "../../platform/mail/tracking.js";
import { isEmail } from "./validate.js";

const hidden = { hide: true };

/**
 * Open pixel and click redirects (public; the signed links send-deps.ts's tracker puts in a
 * message, platform/mail/tracking.ts), and the provider bounce/complaint webhook.
 */
export const trackingRoutes: FastifyPluginAsyncTypebox<{
  tracker: Tracker;
  resolveKey: TransactionalKeyLookup;
}> = async (app, { tracker, resolveKey }) => {
  app.get(
    "/api/transactional/t/o/:sendId/:sig",
    { schema: { ...hidden, params: Type.Object({ sendId: Type.String(), sig: Type.String() }) } },
    async (req, reply) => {
      const sig = req.params.sig.replace(/\.gif$/, "");
      if (tracker.verifyOpen(req.params.sendId, sig) && (await getSendRow(app.db, req.params.sendId))) {
        await addEvent(app.db, req.params.sendId, "opened", openDetail(req.headers["user-agent"]));
      }
      // Always the pixel: a mail client shows a broken image otherwise, and nothing leaks.
      return reply.header("cache-control", "no-store, private").type("image/gif").send(PIXEL);
    },
  );
  app.get(
    "/api/transactional/t/c/:sendId",
    {
      schema: {
        ...hidden,
        params: Type.Object({ sendId: Type.String() }),
        querystring: Type.Object({ u: Type.String(), s: Type.String() }),
      },
    },
    async (req, reply) => {
      const { u, s } = req.query;
      if (!tracker.verifyClick(req.params.sendId, u, s) || !/^https?:\/\//i.test(u)) {
        throw new AppError("NOT_FOUND", "unknown tracking link");
      }
      if (await getSendRow(app.db, req.params.sendId)) {
        await addEvent(app.db, req.params.sendId, "clicked", {
          url: u,
          ...openDetail(req.headers["user-agent"]),
        });
      }
      return reply.header("cache-control", "no-store, private").redirect(u, 302);
    },
  );

  app.post(
    "/api/transactional/webhooks/provider",
    {
      schema: {
        operationId: "receiveProviderEvents",
        tags: ["transactional"],
        summary: "Bounce and complaint notifications from the delivery provider",
        // A transactional key authenticates it, but its errors are in the general format.
        security: [{ txBearer: [] }, { txApiKey: [] }],
        errors: ["UNAUTHORIZED"],
      },
      preHandler: app.requireTransactionalKey(resolveKey),
    },
    async (req) => {
      const who = callerOf(req, "txKey");
      const events = normalizeProviderEvents(req.body);
      let applied = 0;
      for (const e of events) {
        const send = e.messageId ? await findByMessageId(app.db, who.workspaceId, e.messageId) : undefined;
        const hard = e.type === "complaint" || (e.type === "bounce" && e.bounceType !== "soft");
        if (send) {
          const type = e.type === "bounce" ? "bounced" : e.type === "complaint" ? "complained" : "delivered";
          const status =
            e.type === "bounce" && hard ? "bounced" : e.type === "delivery" ? "delivered" : undefined;
          if (status) await recordOutcome(app.db, send.id, status, {}, [{ type, detail: { provider: e } }]);
          else await addEvent(app.db, send.id, type, { provider: e });
        }
        if (hard && e.type !== "delivery") {
          await suppress(
            app.db,
            who.workspaceId,
            e.email,
            e.type === "complaint" ? "complaint" : "hard_bounce",
            e.description ?? null,
          );
        }
        applied++;
      }
      return { received: events.length, applied };
    },
  );
};

/** Our Message-IDs start with the send id (`snd_….<random>@host`): a primary-key lookup. */
async function findByMessageId(db: DbOrTrx, workspaceId: string, messageId: string) {
  const id = messageId.replace(/^<|>$/g, "");
  const row = await db
    .selectFrom("tx_sends")
    .select(["id", "message_id"])
    .where("id", "=", id.split(".")[0]!)
    .where("workspace_id", "=", workspaceId)
    .executeTakeFirst();
  return row && row.message_id === id ? row : undefined;
}

function openDetail(ua: string | undefined) {
  return ua ? { userAgent: ua.slice(0, 300), bot: isbot(ua) } : {};
}

type ProviderEventT = {
  type: "bounce" | "complaint" | "delivery";
  email: string;
  messageId?: string;
  bounceType?: "hard" | "soft";
  description?: string;
};
const SOFT_POSTMARK = new Set(["SoftBounce", "Transient", "DnsError", "AutoResponder", "Unknown"]);

/** Our format (one object or an array) or Postmark's Bounce / SpamComplaint / Delivery records. */
function normalizeProviderEvents(body: unknown): ProviderEventT[] {
  const list = Array.isArray(body) ? body : [body];
  if (list.length === 0 || list.length > 1000)
    throw new AppError("VALIDATION_ERROR", "send 1 to 1000 events");
  return list.map((raw, i) => {
    const b = (raw ?? {}) as Record<string, unknown>;
    let e: ProviderEventT;
    if (typeof b.RecordType === "string") {
      const kind =
        b.RecordType === "Bounce"
          ? "bounce"
          : b.RecordType === "SpamComplaint"
            ? "complaint"
            : b.RecordType === "Delivery"
              ? "delivery"
              : null;
      if (!kind)
        throw new AppError(
          "VALIDATION_ERROR",
          `events[${i}].RecordType ${String(b.RecordType)} is not supported`,
        );
      e = {
        type: kind,
        email: String(b.Email ?? b.Recipient ?? ""),
        messageId: typeof b.MessageID === "string" ? b.MessageID : undefined,
        bounceType: kind === "bounce" ? (SOFT_POSTMARK.has(String(b.Type)) ? "soft" : "hard") : undefined,
        description: typeof b.Description === "string" ? b.Description : undefined,
      };
    } else {
      const okType = b.type === "bounce" || b.type === "complaint" || b.type === "delivery";
      if (!okType)
        throw new AppError("VALIDATION_ERROR", `events[${i}].type must be bounce, complaint or delivery`);
      if (b.bounceType !== undefined && b.bounceType !== "hard" && b.bounceType !== "soft") {
        throw new AppError("VALIDATION_ERROR", `events[${i}].bounceType must be hard or soft`);
      }
      e = {
        type: b.type as ProviderEventT["type"],
        email: String(b.email ?? ""),
        messageId: typeof b.messageId === "string" ? b.messageId : undefined,
        bounceType: b.bounceType as ProviderEventT["bounceType"],
        description: typeof b.description === "string" ? b.description.slice(0, 2000) : undefined,
      };
    }
    if (!isEmail(e.email))
      throw new AppError("VALIDATION_ERROR", `events[${i}].email must be an email address`);
    return e;
  });
}
