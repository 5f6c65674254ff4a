import { fromStripeAmount } from "../../../platform/money.js";
import { PlatformError, collectPages } from "../http.js";
import { type PlatformAdapter, type PlatformContext, type RevenueItem, num } from "../types.js";

/**
 * Stripe: charges, refunds and paid invoices listed with `created[gte]` cursors (newest first, paged
 * with `starting_after`), and MRR from active subscriptions. Restricted key (rk_…) or secret key.
 */
interface StripeList<T> {
  object: "list";
  data: T[];
  has_more: boolean;
}
interface Charge {
  id: string;
  amount: number;
  currency: string;
  created: number;
  status: string;
  invoice?: string | null;
  receipt_email?: string | null;
  billing_details?: { email?: string | null };
}
interface Refund {
  id: string;
  amount: number;
  currency: string;
  created: number;
  status: string;
}
interface Invoice {
  id: string;
  customer_email?: string | null;
  created: number;
}
interface Subscription {
  id: string;
  currency?: string;
  items: {
    data: Array<{
      quantity?: number;
      price: {
        currency?: string;
        unit_amount: number | null;
        recurring?: { interval: string; interval_count?: number };
      };
    }>;
  };
}

async function listAll<T extends { id: string; created?: number }>(
  ctx: PlatformContext,
  path: string,
  query: Record<string, string | number | undefined>,
): Promise<T[]> {
  return collectPages<T, string>(undefined, async (after) => {
    const res = await ctx.withToken((key) =>
      ctx.http.request<StripeList<T>>(`${ctx.hosts.api}${path}`, {
        bearer: key,
        query: { ...query, limit: 100, starting_after: after },
      }),
    );
    const last = res.data[res.data.length - 1];
    return { items: res.data, next: res.has_more && last ? last.id : undefined };
  });
}

/** Monthly amount of a subscription item: unit price × quantity, normalized from its interval. */
const PER_MONTH: Record<string, number> = { day: 365 / 12, week: 52 / 12, month: 1, year: 1 / 12 };

export const payments: PlatformAdapter = {
  type: "payments",
  hosts: { api: "https://api.stripe.com" },
  apiCredentials(input) {
    const key = input.apiKey;
    if (typeof key !== "string" || !/^(rk|sk)_(test|live)_[A-Za-z0-9]{8,}$/.test(key)) {
      return { error: "credentials.apiKey must be a Stripe restricted (rk_…) or secret (sk_…) key" };
    }
    return { credentials: { apiKey: key } };
  },

  async fetchAccount(ctx) {
    const a = await ctx.withToken((key) =>
      ctx.http.request<{
        id: string;
        business_profile?: { name?: string | null };
        settings?: { dashboard?: { display_name?: string | null } };
      }>(`${ctx.hosts.api}/v1/account`, { bearer: key }),
    );
    if (!a?.id) throw new PlatformError(502, "Stripe returned no account");
    return { id: a.id, name: a.settings?.dashboard?.display_name ?? a.business_profile?.name ?? a.id };
  },

  async sync(ctx) {
    const since = (k: string) => (num(ctx.cursor[k]) > 0 ? num(ctx.cursor[k]) : undefined);
    const charges = await listAll<Charge>(ctx, "/v1/charges", { "created[gte]": since("chargesSince") });
    const refunds = await listAll<Refund>(ctx, "/v1/refunds", { "created[gte]": since("refundsSince") });
    const invoices = await listAll<Invoice>(ctx, "/v1/invoices", {
      status: "paid",
      "created[gte]": since("invoicesSince"),
    });
    const subs = await listAll<Subscription>(ctx, "/v1/subscriptions", { status: "active" });

    const invoiceEmail = new Map(invoices.map((i) => [i.id, i.customer_email ?? undefined]));
    const revenue: RevenueItem[] = [
      ...charges
        .filter((c) => c.status === "succeeded")
        .map((c) => ({
          externalId: c.id,
          amount: fromStripeAmount(c.amount, c.currency),
          currency: c.currency.toUpperCase(),
          occurredAt: c.created * 1000,
          email:
            c.billing_details?.email ??
            c.receipt_email ??
            (c.invoice ? invoiceEmail.get(c.invoice) : undefined) ??
            undefined,
        })),
      ...refunds
        .filter((r) => r.status === "succeeded")
        .map((r) => ({
          externalId: r.id,
          amount: -fromStripeAmount(r.amount, r.currency),
          currency: r.currency.toUpperCase(),
          occurredAt: r.created * 1000,
        })),
    ];
    let mrr = 0;
    for (const s of subs) {
      for (const item of s.items.data) {
        const rec = item.price.recurring;
        if (!rec || item.price.unit_amount === null) continue;
        const monthly = (PER_MONTH[rec.interval] ?? 0) / (rec.interval_count ?? 1);
        const currency = item.price.currency ?? s.currency ?? "usd";
        mrr += fromStripeAmount(item.price.unit_amount * (item.quantity ?? 1), currency) * monthly;
      }
    }
    const maxCreated = (xs: Array<{ created: number }>, k: string) =>
      xs.reduce((m, x) => Math.max(m, x.created), num(ctx.cursor[k]));
    return {
      rows: [],
      revenue,
      cursor: {
        chargesSince: maxCreated(charges, "chargesSince"),
        refundsSince: maxCreated(refunds, "refundsSince"),
        invoicesSince: maxCreated(invoices, "invoicesSince"),
      },
      summary: { mrr: Math.round(mrr * 1000) / 1000, activeSubscriptions: subs.length },
    };
  },
};
