import type { ProjectRef } from "../../../platform/auth/principal.js";
import type { DbOrTrx } from "../../../platform/db/index.js";
import { AppError } from "../../../platform/errors.js";
import "../tables.js";
import { type Action, type SourceAdapter, email, header, isObject, str } from "./types.js";
import { TOLERANCE_MS, verifyHubSpotV3 } from "./verify.js";

type CrmObject = Record<string, string | undefined>;

async function load(db: DbOrTrx, project: ProjectRef, type: string, id: string): Promise<CrmObject> {
  const row = await db
    .selectFrom("webhook_crm_objects")
    .select("data")
    .where("project_id", "=", project.id)
    .where("object_type", "=", type)
    .where("object_id", "=", id)
    .executeTakeFirst();
  return row ? (JSON.parse(row.data) as CrmObject) : {};
}

async function remember(db: DbOrTrx, project: ProjectRef, type: string, id: string, patch: CrmObject) {
  const data = JSON.stringify({ ...(await load(db, project, type, id)), ...patch });
  const now = new Date().toISOString();
  await db
    .insertInto("webhook_crm_objects")
    .values({ project_id: project.id, object_type: type, object_id: id, data, updated_at: now })
    .onConflict((oc) =>
      oc.columns(["project_id", "object_type", "object_id"]).doUpdateSet({ data, updated_at: now }),
    )
    .execute();
}

/**
 * HubSpot webhook events (an array, one property change per event). A contact's email change
 * makes or updates the lead; a deal moving to `closedwon` is a revenue conversion, valued with the
 * deal's last `amount` / `deal_currency_code` change and linked through its DEAL_TO_CONTACT
 * association to the contact's lead, as far as earlier events told us.
 */
export const crmAdapter: SourceAdapter = {
  signatureCheck(req) {
    const signature = header(req, "x-hubspot-signature-v3");
    const timestamp = header(req, "x-hubspot-request-timestamp");
    if (!signature || !timestamp || !/^\d+$/.test(timestamp)) {
      throw new AppError(
        "UNAUTHORIZED",
        "missing X-HubSpot-Signature-v3 or X-HubSpot-Request-Timestamp header",
      );
    }
    if (Math.abs(req.now - Number(timestamp)) > TOLERANCE_MS) {
      throw new AppError("UNAUTHORIZED", "X-HubSpot-Request-Timestamp is outside the 5-minute window");
    }
    return (secret) =>
      verifyHubSpotV3(secret, {
        method: req.method,
        uri: req.uri,
        rawBody: req.rawBody,
        timestamp,
        signature,
      });
  },
  units(req) {
    const events = Array.isArray(req.body) ? req.body : [req.body];
    return events.map((e, i) => {
      if (
        !isObject(e) ||
        str(e.eventId) === undefined ||
        !str(e.subscriptionType) ||
        str(e.objectId) === undefined
      ) {
        throw new AppError(
          "VALIDATION_ERROR",
          `body[${i}] must be a HubSpot event with eventId, subscriptionType, objectId`,
        );
      }
      // HubSpot says eventId alone is not guaranteed unique; with the subscription it identifies the event.
      return { id: `${str(e.subscriptionId) ?? "0"}:${str(e.eventId)}`, payload: e };
    });
  },
  async extract(unit, { db, project }) {
    const e = unit.payload as Record<string, unknown>;
    const type = str(e.subscriptionType)!;
    const objectId = str(e.objectId)!;
    const prop = str(e.propertyName);
    const value = str(e.propertyValue);
    const at = typeof e.occurredAt === "number" ? e.occurredAt : undefined;
    const out: Action[] = [];
    if (type === "contact.propertyChange" && prop === "email") {
      const addr = email(value);
      if (!addr) return out;
      await remember(db, project, "contact", objectId, { email: addr });
      out.push({ kind: "lead", email: addr, properties: { crmContactId: objectId } });
    } else if (type === "deal.propertyChange" && (prop === "amount" || prop === "deal_currency_code")) {
      await remember(db, project, "deal", objectId, { [prop]: value });
    } else if (type === "deal.associationChange" && e.associationType === "DEAL_TO_CONTACT") {
      const contact = str(e.toObjectId);
      if (contact)
        await remember(db, project, "deal", objectId, {
          contact: e.associationRemoved ? undefined : contact,
        });
    } else if (type === "deal.propertyChange" && prop === "dealstage" && value === "closedwon") {
      const deal = await load(db, project, "deal", objectId);
      const contact = deal.contact ? await load(db, project, "contact", deal.contact) : {};
      const amount = Number(deal.amount ?? 0);
      out.push({
        kind: "event",
        type: "$revenue",
        email: contact.email,
        visitorId: contact.email ? undefined : `crm:deal:${objectId}`,
        data: {
          revenue: Number.isFinite(amount) ? amount : 0,
          currency: (deal.deal_currency_code ?? "USD").toUpperCase(),
          source: "crm",
          externalId: `deal:${objectId}`,
        },
        timestamp: at,
      });
    }
    return out;
  },
};
