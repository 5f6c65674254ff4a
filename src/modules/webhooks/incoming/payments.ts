import { AppError } from "../../../platform/errors.js";
import { fromStripeAmount } from "../../../platform/money.js";
import { type Action, type SourceAdapter, email, header, isObject, str } from "./types.js";
import { TOLERANCE_MS, parseStripeHeader, verifyStripe } from "./verify.js";

function revenue(
  object: Record<string, unknown>,
  created: number,
  amountMinor: number,
  externalId: string,
  who: string | undefined,
  stripeType: string,
  once?: string,
): Action {
  const currency = (str(object.currency) ?? "usd").toLowerCase();
  const customer = str(object.customer);
  return {
    kind: "event",
    type: "$revenue",
    email: who,
    visitorId: who ? undefined : `payments:${customer ?? externalId}`,
    data: {
      revenue: fromStripeAmount(amountMinor, currency),
      currency: currency.toUpperCase(),
      source: "payments",
      externalId,
      stripeEvent: stripeType,
      ...(customer ? { customerId: customer } : {}),
    },
    timestamp: created * 1000,
    ...(once ? { once } : {}),
  };
}

/** The id of an expandable Stripe reference: a string id, or an expanded object with an id. */
function ref(v: unknown): string | undefined {
  return isObject(v) ? str(v.id) : str(v);
}

/**
 * One payment can reach us as a charge and as the invoice or checkout session it paid; all of
 * them name its PaymentIntent, so that id is the key under which the payment counts once.
 */
const paymentKey = (paymentIntent: string | undefined) =>
  paymentIntent ? `payment:${paymentIntent}` : undefined;

/** An invoice's PaymentIntent: `payment_intent` (API versions before 2025-03-31), else its payments. */
function invoicePaymentIntent(invoice: Record<string, unknown>): string | undefined {
  const direct = ref(invoice.payment_intent);
  if (direct) return direct;
  const payments =
    isObject(invoice.payments) && Array.isArray(invoice.payments.data) ? invoice.payments.data : [];
  for (const p of payments) {
    const pi = isObject(p) && isObject(p.payment) ? ref(p.payment.payment_intent) : undefined;
    if (pi) return pi;
  }
  return undefined;
}

/**
 * Stripe events → revenue (rule in docs/decisions/webhooks.md, "payments"):
 * - invoice.paid counts the invoice; a charge with `invoice` set is left to it.
 * - checkout.session.completed counts only one-off payments (mode "payment"): a subscription
 *   checkout is also paid by an invoice, and invoice.paid counts that.
 * - charge.succeeded counts a captured charge that no invoice claims (a standalone charge, made
 *   with the PaymentIntents or Charges API); an authorised-only charge counts at charge.captured.
 * - invoice, checkout session and charge carry the payment's PaymentIntent as their `once` key,
 *   so whichever of them arrives first counts the payment and the others count nothing.
 * - charge.refunded is cumulative in amount_refunded, so the refund is the growth since the
 *   previous value Stripe sends in previous_attributes.
 */
export const paymentsAdapter: SourceAdapter = {
  signatureCheck(req) {
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
      const who = email(details.email) ?? email(o.customer_email);
      return [revenue(o, created, amount, str(o.id)!, who, type, paymentKey(ref(o.payment_intent)))];
    }
    if (type === "invoice.paid") {
      const amount = Number(o.amount_paid ?? 0);
      if (amount === 0) return [];
      const once = paymentKey(invoicePaymentIntent(o));
      return [revenue(o, created, amount, str(o.id)!, email(o.customer_email), type, once)];
    }
    if (type === "charge.succeeded" || type === "charge.captured") {
      if (ref(o.invoice) || o.captured === false || o.paid === false) return [];
      const amount = Number(o.amount_captured ?? o.amount ?? 0);
      if (!(amount > 0)) return [];
      const billing = isObject(o.billing_details) ? o.billing_details : {};
      const who = email(billing.email) ?? email(o.receipt_email);
      const once = paymentKey(ref(o.payment_intent)) ?? `charge:${str(o.id)}`;
      return [revenue(o, created, amount, str(o.id)!, who, type, once)];
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
