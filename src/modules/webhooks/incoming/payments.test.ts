import { randomBytes } from "node:crypto";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type TestApp, startTestApp } from "../../../../test/helpers/app.js";
import { fixture } from "./fixtures.testing.js";

/** Which Stripe events count revenue, and that one payment counts once whatever the order. */
let t: TestApp;
const stripe = new Stripe("sk_test_dummy");
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

type A = Awaited<ReturnType<TestApp["tenant"]>>;

async function payments() {
  const a = await t.tenant();
  const secret = `whsec_${randomBytes(24).toString("base64")}`;
  expect((await a.put("/api/webhooks/sources/payments", { secret }, { as: "admin" })).status).toBe(200);
  /** Signs and posts a fixture (patched); answers the endpoint's body. */
  const post = async (name: string, patch: (e: any) => void = () => {}) => {
    const e = fixture(name);
    e.id = `evt_${randomBytes(8).toString("hex")}`;
    e.created = Math.floor(Date.now() / 1000);
    patch(e);
    const body = JSON.stringify(e);
    const res = await a.request("POST", "/api/webhooks/payments", body, {
      as: "none",
      headers: {
        "content-type": "application/json",
        "stripe-signature": stripe.webhooks.generateTestHeaderString({ payload: body, secret }),
      },
    });
    expect(res.status).toBe(200);
    return res.body as { processed: number; duplicate: boolean };
  };
  return { a, post };
}

async function revenue(a: A) {
  const rows = await t.app.db
    .selectFrom("events")
    .select("data")
    .where("project_id", "=", a.projectId)
    .where("type", "=", "$revenue")
    .execute();
  return rows.map((r) => JSON.parse(r.data) as { revenue: number; currency: string; externalId: string });
}

const PI = "pi_3PqJ7pLkdIwHu7ix0abcdEFG"; // the checkout fixture's PaymentIntent
const checkoutCharge = (e: any) => {
  e.data.object.id = "ch_checkout";
  e.data.object.amount = 12900;
  e.data.object.amount_captured = 12900;
  e.data.object.currency = "eur";
  e.data.object.payment_intent = PI;
};

describe("payments: which Stripe events count", () => {
  it("a standalone charge.succeeded counts once, on the payer's lead", async () => {
    const { a, post } = await payments();
    expect(await post("stripe-charge.succeeded.json")).toEqual({
      received: true,
      duplicate: false,
      processed: 1,
    });
    expect(await revenue(a)).toEqual([
      expect.objectContaining({ revenue: 75, currency: "GBP", externalId: "ch_3PqK1aLkdIwHu7ix1AbCdEfG" }),
    ]);
    // The same charge in a second event (Stripe resends as a new event id) is not counted again.
    expect(await post("stripe-charge.succeeded.json")).toMatchObject({ duplicate: false, processed: 0 });
    expect(await revenue(a)).toHaveLength(1);
  });

  it("a charge that belongs to an invoice is left to invoice.paid", async () => {
    const { a, post } = await payments();
    const invoiceCharge = (e: any) => {
      e.data.object.invoice = "in_1PqH2ZLkdIwHu7ixm0a1B2c3";
    };
    expect(await post("stripe-charge.succeeded.json", invoiceCharge)).toMatchObject({ processed: 0 });
    expect(await post("stripe-invoice.paid.json")).toMatchObject({ processed: 1 });
    expect((await revenue(a)).map((r) => r.externalId)).toEqual(["in_1PqH2ZLkdIwHu7ixm0a1B2c3"]);
  });

  it("an invoice and its charge without `invoice` (API 2025-03-31) count once by the PaymentIntent", async () => {
    const { a, post } = await payments();
    const withPayments = (e: any) => {
      e.data.object.payments = { data: [{ payment: { type: "payment_intent", payment_intent: PI } }] };
    };
    expect(await post("stripe-invoice.paid.json", withPayments)).toMatchObject({ processed: 1 });
    expect(await post("stripe-charge.succeeded.json", checkoutCharge)).toMatchObject({ processed: 0 });
    expect(await revenue(a)).toHaveLength(1);
  });

  for (const order of ["session first", "charge first"] as const) {
    it(`a checkout session and its charge count once (${order})`, async () => {
      const { a, post } = await payments();
      const steps = [
        () => post("stripe-checkout.session.completed.json"),
        () => post("stripe-charge.succeeded.json", checkoutCharge),
      ];
      if (order === "charge first") steps.reverse();
      const results = [await steps[0]!(), await steps[1]!()];
      expect(results.map((r) => r.processed)).toEqual([1, 0]);
      const rows = await revenue(a);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ revenue: 129, currency: "EUR" });
    });
  }

  it("an authorised-only charge counts when captured", async () => {
    const { a, post } = await payments();
    const uncaptured = (e: any) => {
      e.data.object.captured = false;
      e.data.object.amount_captured = 0;
    };
    expect(await post("stripe-charge.succeeded.json", uncaptured)).toMatchObject({ processed: 0 });
    const captured = (e: any) => {
      e.type = "charge.captured";
    };
    expect(await post("stripe-charge.succeeded.json", captured)).toMatchObject({ processed: 1 });
    expect((await revenue(a)).map((r) => r.revenue)).toEqual([75]);
  });
});
