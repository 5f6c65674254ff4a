import { PlatformError } from "../http.js";
import { type DailyRow, type PlatformAdapter, num } from "../types.js";
import { daysAgo, windowStart } from "./google.js";

/**
 * QuickBooks Online: ProfitAndLoss report by day. Intuit rotates refresh tokens on every refresh;
 * the platform context persists the newest one at once.
 */
interface ColData {
  value: string;
}
interface ReportRow {
  group?: string;
  Summary?: { ColData: ColData[] };
}
interface PnL {
  Columns: { Column: Array<{ ColType: string; MetaData?: Array<{ Name: string; Value: string }> }> };
  Rows: { Row: ReportRow[] };
}

export const accounting: PlatformAdapter = {
  type: "accounting",
  hosts: {
    auth: "https://appcenter.intuit.com",
    token: "https://oauth.platform.intuit.com",
    revoke: "https://developer.api.intuit.com",
    api: "https://quickbooks.api.intuit.com",
  },
  oauth: {
    authorize: { host: "auth", path: "/connect/oauth2" },
    token: { host: "token", path: "/oauth2/v1/tokens/bearer" },
    scopes: ["com.intuit.quickbooks.accounting"],
    pkce: false,
    clientAuth: "basic",
  },

  async fetchAccount(ctx, params) {
    const realm = params?.realmId ?? ctx.credentials.extra?.realmId;
    if (!realm || !/^\d+$/.test(realm)) throw new PlatformError(400, "callback carried no realmId");
    const res = await ctx.withToken((token) =>
      ctx.http.request<{ CompanyInfo?: { CompanyName?: string } }>(
        `${ctx.hosts.api}/v3/company/${realm}/companyinfo/${realm}`,
        { bearer: token, query: { minorversion: 70 } },
      ),
    );
    return {
      id: realm,
      name: res.CompanyInfo?.CompanyName ?? `QuickBooks ${realm}`,
      extra: { realmId: realm },
    };
  },

  async sync(ctx) {
    const realm = ctx.credentials.extra?.realmId;
    if (!realm) throw new PlatformError(400, "connector has no realm; reconnect");
    const from = windowStart(ctx.cursor, ctx.now);
    const to = daysAgo(ctx.now, 0);
    const report = await ctx.withToken((token) =>
      ctx.http.request<PnL>(`${ctx.hosts.api}/v3/company/${realm}/reports/ProfitAndLoss`, {
        bearer: token,
        query: { start_date: from, end_date: to, summarize_column_by: "Days", minorversion: 70 },
      }),
    );
    const days = report.Columns.Column.map((c) => c.MetaData?.find((m) => m.Name === "StartDate")?.Value);
    const total = (group: string) =>
      report.Rows.Row.find((r) => r.group === group)?.Summary?.ColData.map((c) => num(c.value)) ?? [];
    const income = total("Income");
    const expenses = total("Expenses");
    const rows: DailyRow[] = [];
    days.forEach((day, i) => {
      // The first column is the row label and the last the period total: neither carries a
      // StartDate, so only dated Money columns are days.
      if (!day || report.Columns.Column[i]!.ColType !== "Money") return;
      rows.push({
        campaignId: "profit_and_loss",
        campaignName: "Profit and Loss",
        day,
        revenue: income[i] ?? 0,
        spend: expenses[i] ?? 0,
      });
    });
    return { rows, cursor: { lastDay: to } };
  },

  async revoke(ctx) {
    const token = ctx.credentials.refreshToken ?? ctx.credentials.accessToken;
    if (!ctx.client || !token) return;
    await ctx.http.request(`${ctx.hosts.revoke}/v2/oauth2/tokens/revoke`, {
      method: "POST",
      json: { token },
      basic: { user: ctx.client.clientId, password: ctx.client.clientSecret },
    });
  },
};
