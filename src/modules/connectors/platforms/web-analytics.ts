import { PlatformError } from "../http.js";
import { type DailyRow, type PlatformAdapter, type PlatformContext, num } from "../types.js";
import { GOOGLE_HOSTS, daysAgo, googleOAuth, revokeGoogle, windowStart } from "./google.js";

/** GA4 Data API runReport (+ Admin API accountSummaries to find the property). */
const PAGE = 1000;

interface Report {
  rows?: Array<{ dimensionValues: Array<{ value: string }>; metricValues: Array<{ value: string }> }>;
  rowCount?: number;
}

async function runReport(ctx: PlatformContext, property: string, from: string, to: string, offset: number) {
  return ctx.withToken((token) =>
    ctx.http.request<Report>(`${ctx.hosts.api}/v1beta/${property}:runReport`, {
      method: "POST",
      bearer: token,
      json: {
        dateRanges: [{ startDate: from, endDate: to }],
        dimensions: [{ name: "date" }, { name: "sessionDefaultChannelGroup" }],
        metrics: [{ name: "sessions" }, { name: "conversions" }],
        limit: PAGE,
        offset,
      },
    }),
  );
}

export const webAnalytics: PlatformAdapter = {
  type: "web_analytics",
  hosts: {
    ...GOOGLE_HOSTS,
    api: "https://analyticsdata.googleapis.com",
    admin: "https://analyticsadmin.googleapis.com",
  },
  oauth: googleOAuth("https://www.googleapis.com/auth/analytics.readonly"),

  async fetchAccount(ctx) {
    const res = await ctx.withToken((token) =>
      ctx.http.request<{
        accountSummaries?: Array<{
          displayName?: string;
          propertySummaries?: Array<{ property: string; displayName?: string }>;
        }>;
      }>(`${ctx.hosts.admin}/v1beta/accountSummaries`, { bearer: token, query: { pageSize: 50 } }),
    );
    const account = res.accountSummaries?.find((a) => a.propertySummaries?.length);
    const prop = account?.propertySummaries?.[0];
    if (!prop) throw new PlatformError(400, "no GA4 property is accessible with this grant");
    return { id: prop.property, name: prop.displayName ?? prop.property, extra: { property: prop.property } };
  },

  async sync(ctx) {
    const property = ctx.credentials.extra?.property;
    if (!property) throw new PlatformError(400, "connector has no GA4 property; reconnect");
    const from = windowStart(ctx.cursor, ctx.now);
    const to = daysAgo(ctx.now, 0);
    const rows: DailyRow[] = [];
    for (let offset = 0; ; ) {
      const report = await runReport(ctx, property, from, to, offset);
      for (const r of report.rows ?? []) {
        const [date, channel] = r.dimensionValues.map((d) => d.value);
        const [sessions, conversions] = r.metricValues.map((m) => num(m.value));
        rows.push({
          campaignId: channel!,
          campaignName: channel!,
          day: `${date!.slice(0, 4)}-${date!.slice(4, 6)}-${date!.slice(6, 8)}`,
          sessions,
          conversions,
        });
      }
      // The API may return fewer rows than asked: advance by what came back.
      offset += report.rows?.length ?? 0;
      if (!report.rows?.length || offset >= num(report.rowCount)) break;
    }
    return { rows, cursor: { lastDay: to } };
  },

  revoke: revokeGoogle,
};
