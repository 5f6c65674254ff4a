import { PlatformError } from "../http.js";
import { type DailyRow, type PlatformAdapter, type PlatformContext, num } from "../types.js";
import { GOOGLE_HOSTS, daysAgo, googleOAuth, revokeGoogle, windowStart } from "./google.js";

/** Google Ads API: GAQL over googleAds:searchStream. https://developers.google.com/google-ads/api/rest */
const VERSION = "v21";

interface StreamBatch {
  results?: Array<{
    customer?: { id?: string; descriptiveName?: string };
    campaign?: { id?: string; name?: string };
    metrics?: Record<string, string | number>;
    segments?: { date?: string };
  }>;
}

async function searchStream(ctx: PlatformContext, customerId: string, query: string) {
  const batches = await ctx.withToken((token) =>
    ctx.http.request<StreamBatch[]>(
      `${ctx.hosts.api}/${VERSION}/customers/${customerId}/googleAds:searchStream`,
      {
        method: "POST",
        bearer: token,
        headers: { "developer-token": ctx.developerToken ?? "" },
        json: { query },
      },
    ),
  );
  // searchStream answers every row at once, in batches (its form of pagination).
  return (Array.isArray(batches) ? batches : []).flatMap((b) => b.results ?? []);
}

export const searchAds: PlatformAdapter = {
  type: "search_ads",
  hosts: { ...GOOGLE_HOSTS, api: "https://googleads.googleapis.com" },
  oauth: googleOAuth("https://www.googleapis.com/auth/adwords"),

  async fetchAccount(ctx) {
    const list = await ctx.withToken((token) =>
      ctx.http.request<{ resourceNames?: string[] }>(
        `${ctx.hosts.api}/${VERSION}/customers:listAccessibleCustomers`,
        { bearer: token, headers: { "developer-token": ctx.developerToken ?? "" } },
      ),
    );
    const customerId = list.resourceNames?.[0]?.split("/")[1];
    if (!customerId) throw new PlatformError(400, "no Google Ads customer is accessible with this grant");
    const rows = await searchStream(
      ctx,
      customerId,
      "SELECT customer.id, customer.descriptive_name FROM customer",
    );
    const name = rows[0]?.customer?.descriptiveName ?? `Google Ads ${customerId}`;
    return { id: customerId, name, extra: { customerId } };
  },

  async sync(ctx) {
    const customerId = ctx.credentials.extra?.customerId;
    if (!customerId) throw new PlatformError(400, "connector has no customer id; reconnect");
    const from = windowStart(ctx.cursor, ctx.now);
    const to = daysAgo(ctx.now, 0);
    const results = await searchStream(
      ctx,
      customerId,
      "SELECT campaign.id, campaign.name, metrics.cost_micros, metrics.impressions, metrics.clicks, " +
        "metrics.conversions, metrics.conversions_value, segments.date FROM campaign " +
        `WHERE segments.date BETWEEN '${from}' AND '${to}'`,
    );
    const rows: DailyRow[] = results.map((r) => ({
      campaignId: String(r.campaign?.id ?? "unknown"),
      campaignName: r.campaign?.name ?? String(r.campaign?.id ?? "unknown"),
      day: r.segments?.date ?? to,
      spend: num(r.metrics?.costMicros) / 1_000_000,
      impressions: num(r.metrics?.impressions),
      clicks: num(r.metrics?.clicks),
      conversions: num(r.metrics?.conversions),
      revenue: num(r.metrics?.conversionsValue),
    }));
    return { rows, cursor: { lastDay: to } };
  },

  revoke: revokeGoogle,
};
