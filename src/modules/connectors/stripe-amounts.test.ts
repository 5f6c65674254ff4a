import { randomBytes } from "node:crypto";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StripeData, STRIPE_KEY, startStripeFake, stripeData } from "../../../test/fakes/stripe.js";
import type { FakePlatform } from "../../../test/fakes/server.js";
import { type TestApp, type Tenant, startTestApp } from "../../../test/helpers/app.js";
import { eventually, platformConfig } from "./connectors.testing.js";

/**
 * The same Stripe charges reach Lift by the connector's sync and by the signed webhook; both must
 * give the same amount in the currency's major unit, for zero-, two- and three-decimal currencies.
 */
const created = Math.floor(Date.now() / 1000) - 3600;
const charge = (id: string, amount: number, currency: string, email: string) => ({
  id,
  object: "charge",
  amount,
  amount_captured: amount,
  amount_refunded: 0,
  currency,
  created,
  status: "succeeded",
  paid: true,
  invoice: null,
  payment_intent: `pi_${id}`,
  customer: `cus_${id}`,
  receipt_email: email,
  billing_details: { email },
});
const CHARGES = [
  charge("ch_jpy", 5000, "jpy", "yen@example.com"), // ¥5000 (zero-decimal)
  charge("ch_usd", 4999, "usd", "dollar@example.com"), // $49.99
  charge("ch_kwd", 12345, "kwd", "dinar@example.com"), // 12.345 KWD (three-decimal)
];
const EXPECTED: Record<string, number> = { ch_jpy: 5000, ch_usd: 49.99, ch_kwd: 12.345 };

function data(): StripeData {
  const d = stripeData();
  d.charges = CHARGES as unknown as StripeData["charges"];
  d.refunds = [
    {
      id: "re_kwd",
      object: "refund",
      amount: 1005,
      currency: "kwd",
      created,
      status: "succeeded",
      charge: "ch_kwd",
    },
  ];
  d.invoices = [];
  d.subscriptions = [
    {
      id: "sub_kwd",
      object: "subscription",
      status: "active",
      items: {
        object: "list",
        data: [
          {
            id: "si_kwd",
            quantity: 1,
            price: {
              id: "price_kwd",
              currency: "kwd",
              unit_amount: 10500,
              recurring: { interval: "month", interval_count: 1 },
            },
          },
        ],
      },
    },
  ];
  return d;
}

let t: TestApp;
let fake: FakePlatform;
const stripe = new Stripe("sk_test_dummy");
beforeAll(async () => {
  fake = await startStripeFake(2, data());
  t = await startTestApp(platformConfig([["payments", fake]]));
});
afterAll(async () => {
  await t.close();
  await fake.close();
});

async function revenueByExternalId(a: Tenant, n: number): Promise<Record<string, number>> {
  const rows = await eventually(async () => {
    await t.app.worker.drain();
    const r = await t.app.db
      .selectFrom("events")
      .select("data")
      .where("project_id", "=", a.projectId)
      .where("type", "=", "$revenue")
      .execute();
    return r.length >= n && r;
  });
  expect(rows).toHaveLength(n);
  return Object.fromEntries(
    rows
      .map((r) => JSON.parse(r.data) as { externalId: string; revenue: number })
      .map((d) => [d.externalId, d.revenue]),
  );
}

function signedEvent(type: string, object: unknown, previous?: unknown) {
  const body = JSON.stringify({
    id: `evt_${randomBytes(8).toString("hex")}`,
    object: "event",
    created,
    type,
    data: { object, ...(previous ? { previous_attributes: previous } : {}) },
  });
  return body;
}

describe("Stripe amounts: sync and webhook agree", () => {
  it("JPY, USD and KWD charges and a KWD refund give the same major-unit amounts on both paths", async () => {
    const synced = await t.tenant();
    expect(
      (await synced.post("/api/connectors", { type: "payments", credentials: { apiKey: STRIPE_KEY } }))
        .status,
    ).toBe(201);
    await synced.get("/api/sync/run");
    await t.app.worker.drain();
    const bySync = await revenueByExternalId(synced, 4);
    expect(bySync).toMatchObject(EXPECTED);
    expect(bySync.re_kwd).toBe(-1.005);
    expect((await synced.get("/api/metrics/payments?period=7d")).body).toMatchObject({ mrr: 10.5 });

    const hooked = await t.tenant();
    const secret = `whsec_${randomBytes(24).toString("base64")}`;
    await hooked.put("/api/webhooks/sources/payments", { secret }, { as: "admin" });
    const post = async (body: string) => {
      const res = await hooked.request("POST", "/api/webhooks/payments", body, {
        as: "none",
        headers: {
          "content-type": "application/json",
          "stripe-signature": stripe.webhooks.generateTestHeaderString({ payload: body, secret }),
        },
      });
      expect(res.status).toBe(200);
      return res.body;
    };
    for (const c of CHARGES) {
      expect(await post(signedEvent("charge.succeeded", c))).toMatchObject({ processed: 1 });
    }
    const refunded = { ...CHARGES[2], amount_refunded: 1005, refunded: false };
    expect(await post(signedEvent("charge.refunded", refunded, { amount_refunded: 0 }))).toMatchObject({
      processed: 1,
    });
    const byWebhook = await revenueByExternalId(hooked, 4);
    const refundKey = Object.keys(byWebhook).find((k) => k.startsWith("ch_kwd:refund"))!;
    expect({ ...byWebhook, [refundKey]: undefined }).toMatchObject(EXPECTED);
    expect(byWebhook[refundKey]).toBe(bySync.re_kwd);
    for (const id of Object.keys(EXPECTED)) expect(byWebhook[id]).toBe(bySync[id]);
  });
});
