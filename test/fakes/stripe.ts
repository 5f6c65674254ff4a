import { FakePlatform } from "./server.js";

/** Stripe: /v1/account and list endpoints with created[gte] filters and starting_after paging. */
export const STRIPE_KEY = "rk_test_51FakeRestrictedKeyAbcdef";
const ago = (days: number) => Math.floor((Date.now() - days * 86_400_000) / 1000);

export const stripeData = () => ({
  charges: [
    {
      id: "ch_1",
      object: "charge",
      amount: 4900,
      currency: "usd",
      created: ago(1),
      status: "succeeded",
      paid: true,
      invoice: "in_1",
      receipt_email: null,
      billing_details: { email: null },
    },
    {
      id: "ch_2",
      object: "charge",
      amount: 12000,
      currency: "usd",
      created: ago(2),
      status: "succeeded",
      paid: true,
      invoice: null,
      receipt_email: "bob@example.com",
      billing_details: { email: null },
    },
    {
      id: "ch_3",
      object: "charge",
      amount: 5000,
      currency: "usd",
      created: ago(2),
      status: "failed",
      paid: false,
      invoice: null,
      receipt_email: null,
      billing_details: { email: null },
    },
    {
      id: "ch_4",
      object: "charge",
      amount: 2500,
      currency: "usd",
      created: ago(12),
      status: "succeeded",
      paid: true,
      invoice: null,
      receipt_email: null,
      billing_details: { email: "carol@example.com" },
    },
  ],
  refunds: [
    {
      id: "re_1",
      object: "refund",
      amount: 1000,
      currency: "usd",
      created: ago(1),
      status: "succeeded",
      charge: "ch_2",
    },
  ],
  invoices: [
    {
      id: "in_1",
      object: "invoice",
      status: "paid",
      created: ago(1),
      customer_email: "alice@example.com",
      amount_paid: 4900,
      charge: "ch_1",
    },
  ],
  subscriptions: [
    {
      id: "sub_1",
      object: "subscription",
      status: "active",
      items: {
        object: "list",
        data: [
          {
            id: "si_1",
            quantity: 2,
            price: {
              id: "price_m",
              currency: "usd",
              unit_amount: 4900,
              recurring: { interval: "month", interval_count: 1 },
            },
          },
        ],
      },
    },
    {
      id: "sub_2",
      object: "subscription",
      status: "active",
      items: {
        object: "list",
        data: [
          {
            id: "si_2",
            quantity: 1,
            price: {
              id: "price_y",
              currency: "usd",
              unit_amount: 120000,
              recurring: { interval: "year", interval_count: 1 },
            },
          },
        ],
      },
    },
  ],
});

export type StripeData = ReturnType<typeof stripeData>;

export async function startStripeFake(pageSize = 2, data: StripeData = stripeData()) {
  const fake = new FakePlatform("stripe", {
    error: { message: "Invalid API Key provided: rk_test_****cdef", type: "invalid_request_error" },
  });
  fake.on("GET", /^\/v1\/account$/, (req, res) => {
    if (!fake.authorized(req, res, [STRIPE_KEY])) return;
    res.send(200, {
      id: "acct_1Fake",
      object: "account",
      business_profile: { name: "Acme Inc" },
      settings: { dashboard: { display_name: "Acme" } },
    });
  });
  const list = (name: keyof StripeData) =>
    fake.on("GET", new RegExp(`^/v1/${name}$`), (req, res) => {
      if (!fake.authorized(req, res, [STRIPE_KEY])) return;
      const gte = Number(req.query.get("created[gte]") ?? 0);
      const status = req.query.get("status");
      // Newest first, like Stripe.
      let items = (data[name] as Array<{ id: string; created?: number; status: string }>)
        .filter((x) => (x.created ?? 0) >= gte && (!status || x.status === status))
        .sort((a, b) => (b.created ?? 0) - (a.created ?? 0) || b.id.localeCompare(a.id));
      const after = req.query.get("starting_after");
      if (after) items = items.slice(items.findIndex((x) => x.id === after) + 1);
      const limit = Math.min(Number(req.query.get("limit") ?? 10), pageSize);
      res.send(200, {
        object: "list",
        url: `/v1/${name}`,
        has_more: items.length > limit,
        data: items.slice(0, limit),
      });
    });
  list("charges");
  list("refunds");
  list("invoices");
  list("subscriptions");
  return fake.start();
}
