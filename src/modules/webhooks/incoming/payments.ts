import { AppError } from "../../../platform/errors.js";
import { type Action, type SourceAdapter, email, header, isObject, str } from "./types.js";
import { TOLERANCE_MS, parseStripeHeader, verifyStripe } from "./verify.js";

// Stripe amounts are in the currency's minor unit; these currencies have none, or three decimals.
const ZERO_DECIMAL = new Set("bif clp djf gnf jpy kmf krw mga pyg rwf ugx vnd vuv xaf xof xpf".split(" "));
const THREE_DECIMAL = new Set("bhd jod kwd omr tnd".split(" "));
export function fromMinorUnits(amount: number, currency: string): number {
  const c = currency.toLowerCase();
  if (ZERO_DECIMAL.has(c)) return amount;
  return amount / (THREE_DECIMAL.has(c) ? 1000 : 100);
}

function revenue(
  object: Record<string, unknown>,
  created: number,
  amountMinor: number,
  externalId: string,
  who: string | undefined,
  stripeType: string,
): Action {
  const currency = (str(object.currency) ?? "usd").toLowerCase();
  const customer = str(object.customer);
  return {
    kind: "event",
    type: "$revenue",
    email: who,
    visitorId: who ? undefined : `payments:${customer ?? externalId}`,
    data: {
      revenue: fromMinorUnits(amountMinor, currency),
      currency: currency.toUpperCase(),
      source: "payments",
      externalId,
      stripeEvent: stripeType,
      ...(customer ? { customerId: customer } : {}),
    },
    timestamp: created * 1000,
  };
}

/**
 * Stripe events → revenue. checkout.session.completed counts only one-off payments (mode
 * "payment"): a subscription checkout is also paid by an invoice, and invoice.paid counts that.
 * charge.refunded is cumulative in amount_refunded, so the refund is the growth since the
 * previous value Stripe sends in previous_attributes.
 */
export const paymentsAdapter: SourceAdapter = {
  prepare(req) {
    const parsed = parseStripeHeader(header(req, "stripe-signature"));
    if (!parsed) throw new AppError("UNAUTHORIZED", "missing or malformed Stripe-Signature header");
    if (Math.abs(req.now - parsed.t * 1000) > TOLERANCE_MS) {
      throw new AppError("UNAUTHORIZED", "Stripe-Signature timestamp is outside the 5-minute tolerance");
    }
    return (secret) => verifyStripe(req.rawBody, parsed, secret);
  },
  units(req) {
    const b = req.body;
    if (!isObject(b) || !str(b.id) || !str(b.type)) {
      throw new AppError("VALIDATION_ERROR", "body must be a Stripe event with id and type");
    }
    return [{ id: str(b.id)!, payload: b }];
  },
  async extract(unit) {
    const event = unit.payload as Record<string, unknown>;
    const type = str(event.type)!;
    const created = typeof event.created === "number" ? event.created : Math.floor(Date.now() / 1000);
    const data = isObject(event.data) ? event.data : {};
    const o = isObject(data.object) ? data.object : null;
    if (!o) return [];
    if (type === "checkout.session.completed") {
      if (o.mode !== "payment" || o.payment_status === "unpaid") return [];
      const details = isObject(o.customer_details) ? o.customer_details : {};
      const amount = Number(o.amount_total ?? 0);
      return [revenue(o, created, amount, str(o.id)!, email(details.email) ?? email(o.customer_email), type)];
    }
    if (type === "invoice.paid") {
      const amount = Number(o.amount_paid ?? 0);
      if (amount === 0) return [];
      return [revenue(o, created, amount, str(o.id)!, email(o.customer_email), type)];
    }
    if (type === "charge.refunded") {
      const prev = isObject(data.previous_attributes)
        ? Number(data.previous_attributes.amount_refunded ?? 0)
        : 0;
      const refunded = Number(o.amount_refunded ?? 0) - prev;
      if (!(refunded > 0)) return [];
      const billing = isObject(o.billing_details) ? o.billing_details : {};
      const who = email(billing.email) ?? email(o.receipt_email);
      return [revenue(o, created, -refunded, `${str(o.id)}:refund:${str(event.id)}`, who, type)];
    }
    return [];
  },
};
