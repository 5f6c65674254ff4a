import { googleOAuthRoutes, GOOGLE_UNAUTHORIZED } from "./google-oauth.js";
import { FakePlatform, dayAgo } from "./server.js";

/** GA4 Admin accountSummaries and Data API runReport (date × sessionDefaultChannelGroup), paged by offset. */
export const ga4Rows = () => [
  { date: dayAgo(1), channel: "Paid Search", sessions: 120, conversions: 6 },
  { date: dayAgo(1), channel: "Organic Search", sessions: 300, conversions: 9 },
  { date: dayAgo(2), channel: "Paid Search", sessions: 80, conversions: 2 },
  { date: dayAgo(2), channel: "Direct", sessions: 50, conversions: 1 },
  { date: dayAgo(40), channel: "Direct", sessions: 999, conversions: 99 },
];

export async function startGa4Fake(client = { id: "ga4-client", secret: "ga4-secret" }, pageSize = 2) {
  const fake = new FakePlatform("ga4", GOOGLE_UNAUTHORIZED);
  const rows = ga4Rows();
  googleOAuthRoutes(fake, client);
  fake.on("GET", /^\/v1beta\/accountSummaries$/, (req, res) => {
    if (!fake.authorized(req, res)) return;
    res.send(200, {
      accountSummaries: [
        {
          name: "accountSummaries/100",
          account: "accounts/100",
          displayName: "Acme",
          propertySummaries: [
            {
              property: "properties/4242",
              displayName: "acme.com - GA4",
              propertyType: "PROPERTY_TYPE_ORDINARY",
            },
          ],
        },
      ],
    });
  });
  fake.on("POST", /^\/v1beta\/properties\/\d+:runReport$/, (req, res) => {
    if (!fake.authorized(req, res)) return;
    const { startDate, endDate } = req.json.dateRanges[0];
    const matched = rows.filter((r) => r.date >= startDate && r.date <= endDate);
    // The real API caps a page at `limit`; this fake pages smaller to exercise offset paging.
    const limit = Math.min(Number(req.json.limit ?? 10000), pageSize);
    const offset = Number(req.json.offset ?? 0);
    res.send(200, {
      dimensionHeaders: [{ name: "date" }, { name: "sessionDefaultChannelGroup" }],
      metricHeaders: [
        { name: "sessions", type: "TYPE_INTEGER" },
        { name: "conversions", type: "TYPE_INTEGER" },
      ],
      rows: matched.slice(offset, offset + limit).map((r) => ({
        dimensionValues: [{ value: r.date.replace(/-/g, "") }, { value: r.channel }],
        metricValues: [{ value: String(r.sessions) }, { value: String(r.conversions) }],
      })),
      rowCount: matched.length,
      metadata: { currencyCode: "USD", timeZone: "Etc/UTC" },
      kind: "analyticsData#runReport",
    });
  });
  return fake.start();
}
