import { PlatformError, collectPages } from "../http.js";
import {
  type DailyRow,
  type LeadItem,
  type PlatformAdapter,
  type PlatformContext,
  type RevenueItem,
  num,
} from "../types.js";

/**
 * HubSpot CRM v3: contacts and deals through the search endpoint, incremental by last-modified
 * time (`lastmodifieddate` on contacts, `hs_lastmodifieddate` on deals), ascending, paged by `after`.
 */
interface SearchPage {
  results: Array<{ id: string; properties: Record<string, string | null>; updatedAt?: string }>;
  paging?: { next?: { after: string } };
}

async function searchSince(
  ctx: PlatformContext,
  object: "contacts" | "deals",
  modifiedProp: string,
  since: number,
  properties: string[],
) {
  return collectPages<SearchPage["results"][number], string>(undefined, async (after) => {
    const res = await ctx.withToken((token) =>
      ctx.http.request<SearchPage>(`${ctx.hosts.api}/crm/v3/objects/${object}/search`, {
        method: "POST",
        bearer: token,
        json: {
          filterGroups: [
            { filters: [{ propertyName: modifiedProp, operator: "GTE", value: String(since) }] },
          ],
          sorts: [{ propertyName: modifiedProp, direction: "ASCENDING" }],
          properties: [...properties, modifiedProp],
          limit: 100,
          after,
        },
      }),
    );
    return { items: res.results, next: res.paging?.next?.after };
  });
}

const maxModified = (rows: SearchPage["results"], prop: string, prev: number) =>
  rows.reduce((m, r) => Math.max(m, Date.parse(r.properties[prop] ?? r.updatedAt ?? "") || 0), prev);

export const crm: PlatformAdapter = {
  type: "crm",
  hosts: { auth: "https://app.hubspot.com", api: "https://api.hubapi.com" },
  oauth: {
    authorize: { host: "auth", path: "/oauth/authorize" },
    token: { host: "api", path: "/oauth/v1/token" },
    scopes: ["oauth", "crm.objects.contacts.read", "crm.objects.deals.read"],
    pkce: false,
    clientAuth: "body",
  },
  apiCredentials(input) {
    const token = input.accessToken;
    if (typeof token !== "string" || !/^pat-[a-z0-9]+-[A-Za-z0-9-]{8,}$/.test(token)) {
      return { error: "credentials.accessToken must be a HubSpot private app token (pat-…)" };
    }
    // Stored as an API key: a private app token has no refresh and is sent as a Bearer token.
    return { credentials: { apiKey: token } };
  },

  async fetchAccount(ctx) {
    const d = await ctx.withToken((token) =>
      ctx.http.request<{ portalId?: number; uiDomain?: string }>(`${ctx.hosts.api}/account-info/v3/details`, {
        bearer: token,
      }),
    );
    if (!d.portalId) throw new PlatformError(502, "HubSpot returned no portal id");
    return { id: String(d.portalId), name: `HubSpot portal ${d.portalId}` };
  },

  async sync(ctx) {
    const contactsSince = num(ctx.cursor.contactsSince);
    const dealsSince = num(ctx.cursor.dealsSince);
    const contacts = await searchSince(ctx, "contacts", "lastmodifieddate", contactsSince, [
      "email",
      "firstname",
      "lastname",
    ]);
    const deals = await searchSince(ctx, "deals", "hs_lastmodifieddate", dealsSince, [
      "dealname",
      "amount",
      "dealstage",
      "closedate",
      "deal_currency_code",
    ]);
    const leads: LeadItem[] = contacts
      .filter((c) => c.properties.email)
      .map((c) => ({
        email: c.properties.email!,
        name: [c.properties.firstname, c.properties.lastname].filter(Boolean).join(" ") || undefined,
        externalId: `hubspot:contact:${c.id}`,
      }));
    // Won deals are revenue; the amount at the time the deal is first seen won is kept.
    const revenue: RevenueItem[] = deals
      .filter((d) => d.properties.dealstage === "closedwon" && num(d.properties.amount) !== 0)
      .map((d) => ({
        externalId: `hubspot:deal:${d.id}`,
        amount: num(d.properties.amount),
        currency: (d.properties.deal_currency_code ?? "USD").toUpperCase(),
        occurredAt: Date.parse(d.properties.closedate ?? "") || ctx.now,
      }));
    const rows: DailyRow[] = [];
    return {
      rows,
      revenue,
      leads,
      cursor: {
        contactsSince: maxModified(contacts, "lastmodifieddate", contactsSince),
        dealsSince: maxModified(deals, "hs_lastmodifieddate", dealsSince),
      },
      summary: { contactsSynced: contacts.length },
    };
  },

  async revoke(ctx) {
    // Only OAuth grants can be revoked; a private app token is managed in HubSpot itself.
    if (!ctx.credentials.refreshToken) return;
    await ctx.http.request(`${ctx.hosts.api}/oauth/v1/refresh-tokens/${ctx.credentials.refreshToken}`, {
      method: "DELETE",
    });
  },
};
