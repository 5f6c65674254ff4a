import { PlatformError, collectPages } from "../http.js";
import { toTokenSet } from "../oauth.js";
import { type DailyRow, type PlatformAdapter, type PlatformContext, num } from "../types.js";
import { daysAgo, windowStart } from "./google.js";

/** Meta Marketing API (Graph API): ad account insights at campaign level, one row per day. */
const V = "v23.0";
/** Action types counted as conversions; `purchase` also carries the revenue (action_values). */
export const META_CONVERSION_ACTIONS = ["purchase", "lead", "complete_registration"];

interface Insight {
  campaign_id: string;
  campaign_name: string;
  spend?: string;
  impressions?: string;
  clicks?: string;
  actions?: Array<{ action_type: string; value: string }>;
  action_values?: Array<{ action_type: string; value: string }>;
  date_start: string;
}

const sumActions = (xs: Insight["actions"], types: string[]) =>
  (xs ?? []).filter((a) => types.includes(a.action_type)).reduce((s, a) => s + num(a.value), 0);

/** Meta has no refresh token: a long-lived token is re-exchanged (fb_exchange_token) while valid. */
async function exchange(ctx: PlatformContext, params: Record<string, string>) {
  if (!ctx.client) throw new PlatformError(400, "social_ads OAuth client is not configured");
  const res = await ctx.http.request<{ access_token: string; expires_in?: number }>(
    `${ctx.hosts.api}/${V}/oauth/access_token`,
    { query: { client_id: ctx.client.clientId, client_secret: ctx.client.clientSecret, ...params } },
  );
  return toTokenSet(res);
}

export const socialAds: PlatformAdapter = {
  type: "social_ads",
  hosts: { auth: "https://www.facebook.com", api: "https://graph.facebook.com" },
  oauth: {
    authorize: { host: "auth", path: `/${V}/dialog/oauth` },
    token: { host: "api", path: `/${V}/oauth/access_token` },
    scopes: ["ads_read"],
    scopeSeparator: ",",
    pkce: false,
    clientAuth: "body",
  },
  async exchangeCode(ctx, code, redirectUri) {
    const short = await exchange(ctx, { code, redirect_uri: redirectUri });
    return exchange(ctx, { grant_type: "fb_exchange_token", fb_exchange_token: short.accessToken });
  },
  async refresh(ctx) {
    if (!ctx.credentials.accessToken) throw new PlatformError(400, "no token to extend");
    return exchange(ctx, { grant_type: "fb_exchange_token", fb_exchange_token: ctx.credentials.accessToken });
  },

  async fetchAccount(ctx) {
    const res = await ctx.withToken((token) =>
      ctx.http.request<{ data: Array<{ id: string; account_id: string; name: string }> }>(
        `${ctx.hosts.api}/${V}/me/adaccounts`,
        { bearer: token, query: { fields: "name,account_id", limit: 25 } },
      ),
    );
    const acct = res.data?.[0];
    if (!acct) throw new PlatformError(400, "no ad account is accessible with this grant");
    return { id: acct.id, name: acct.name, extra: { adAccountId: acct.id } };
  },

  async sync(ctx) {
    const account = ctx.credentials.extra?.adAccountId;
    if (!account) throw new PlatformError(400, "connector has no ad account; reconnect");
    const since = windowStart(ctx.cursor, ctx.now);
    const until = daysAgo(ctx.now, 0);
    const insights = await collectPages<Insight, string>(undefined, async (after) => {
      const res = await ctx.withToken((token) =>
        ctx.http.request<{ data: Insight[]; paging?: { cursors?: { after?: string }; next?: string } }>(
          `${ctx.hosts.api}/${V}/${account}/insights`,
          {
            bearer: token,
            query: {
              level: "campaign",
              time_increment: 1,
              fields: "campaign_id,campaign_name,spend,impressions,clicks,actions,action_values",
              time_range: JSON.stringify({ since, until }),
              limit: 100,
              after,
            },
          },
        ),
      );
      // Graph API: a `next` link means another page; its cursor is paging.cursors.after.
      return { items: res.data, next: res.paging?.next ? res.paging.cursors?.after : undefined };
    });
    const rows: DailyRow[] = insights.map((r) => ({
      campaignId: r.campaign_id,
      campaignName: r.campaign_name,
      day: r.date_start,
      spend: num(r.spend),
      impressions: num(r.impressions),
      clicks: num(r.clicks),
      conversions: sumActions(r.actions, META_CONVERSION_ACTIONS),
      revenue: sumActions(r.action_values, ["purchase"]),
    }));
    return { rows, cursor: { lastDay: until } };
  },

  async revoke(ctx) {
    await ctx.withToken((token) =>
      ctx.http.request(`${ctx.hosts.api}/${V}/me/permissions`, { method: "DELETE", bearer: token }),
    );
  },
};
