import { PlatformError, collectPages } from "../http.js";
import { type DailyRow, type PlatformAdapter, type PlatformContext, num } from "../types.js";
import { daysAgo, windowStart } from "./google.js";

/** LinkedIn Marketing API (versioned REST): adAccounts, adCampaigns, adAnalytics pivot CAMPAIGN daily. */
const HEADERS = { "LinkedIn-Version": "202510", "X-Restli-Protocol-Version": "2.0.0" };

const get = <T>(ctx: PlatformContext, url: string) =>
  ctx.withToken((token) => ctx.http.request<T>(url, { bearer: token, headers: HEADERS }));

/** Rest.li date: (year:2026,month:11,day:3) */
const restliDate = (iso: string) => {
  const [y, m, d] = iso.split("-").map(Number);
  return `(year:${y},month:${m},day:${d})`;
};
const pad = (n: number) => String(n).padStart(2, "0");

export const professionalNetworkAds: PlatformAdapter = {
  type: "professional_network_ads",
  hosts: { auth: "https://www.linkedin.com", api: "https://api.linkedin.com" },
  oauth: {
    authorize: { host: "auth", path: "/oauth/v2/authorization" },
    token: { host: "auth", path: "/oauth/v2/accessToken" },
    scopes: ["r_ads", "r_ads_reporting"],
    pkce: false,
    clientAuth: "body",
  },

  async fetchAccount(ctx) {
    const res = await get<{ elements: Array<{ id: number; name: string }> }>(
      ctx,
      `${ctx.hosts.api}/rest/adAccounts?q=search`,
    );
    const acct = res.elements?.[0];
    if (!acct) throw new PlatformError(400, "no LinkedIn ad account is accessible with this grant");
    return { id: String(acct.id), name: acct.name, extra: { adAccountId: String(acct.id) } };
  },

  async sync(ctx) {
    const account = ctx.credentials.extra?.adAccountId;
    if (!account) throw new PlatformError(400, "connector has no ad account; reconnect");
    const campaigns = await collectPages<{ id: number; name: string }, string>(
      undefined,
      async (pageToken) => {
        const q = pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : "";
        const res = await get<{
          elements: Array<{ id: number; name: string }>;
          metadata?: { nextPageToken?: string };
        }>(ctx, `${ctx.hosts.api}/rest/adAccounts/${account}/adCampaigns?q=search&pageSize=100${q}`);
        return { items: res.elements, next: res.metadata?.nextPageToken };
      },
    );
    const names = new Map(campaigns.map((c) => [String(c.id), c.name]));
    const from = windowStart(ctx.cursor, ctx.now);
    const to = daysAgo(ctx.now, 0);
    const urn = encodeURIComponent(`urn:li:sponsoredAccount:${account}`);
    const fields =
      "dateRange,pivotValues,costInLocalCurrency,impressions,clicks,externalWebsiteConversions,conversionValueInLocalCurrency";
    // Rest.li 2.0 query syntax: parentheses stay literal, URNs inside List() are encoded.
    const url =
      `${ctx.hosts.api}/rest/adAnalytics?q=analytics&pivot=CAMPAIGN&timeGranularity=DAILY` +
      `&dateRange=(start:${restliDate(from)},end:${restliDate(to)})&accounts=List(${urn})&fields=${fields}`;
    const res = await get<{
      elements: Array<{
        pivotValues: string[];
        dateRange: { start: { year: number; month: number; day: number } };
        costInLocalCurrency?: string;
        impressions?: number;
        clicks?: number;
        externalWebsiteConversions?: number;
        conversionValueInLocalCurrency?: string;
      }>;
    }>(ctx, url);
    const rows: DailyRow[] = res.elements.map((e) => {
      const id = e.pivotValues[0]!.split(":").pop()!;
      const s = e.dateRange.start;
      return {
        campaignId: id,
        campaignName: names.get(id) ?? id,
        day: `${s.year}-${pad(s.month)}-${pad(s.day)}`,
        spend: num(e.costInLocalCurrency),
        impressions: num(e.impressions),
        clicks: num(e.clicks),
        conversions: num(e.externalWebsiteConversions),
        revenue: num(e.conversionValueInLocalCurrency),
      };
    });
    return { rows, cursor: { lastDay: to } };
  },

  async revoke(ctx) {
    if (!ctx.client || !ctx.credentials.accessToken) return;
    await ctx.http.request(`${ctx.hosts.auth}/oauth/v2/revoke`, {
      method: "POST",
      form: {
        client_id: ctx.client.clientId,
        client_secret: ctx.client.clientSecret,
        token: ctx.credentials.accessToken,
      },
    });
  },
};
