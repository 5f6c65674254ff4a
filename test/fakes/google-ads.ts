import { googleOAuthRoutes, GOOGLE_UNAUTHORIZED } from "./google-oauth.js";
import { FakePlatform, dayAgo } from "./server.js";

/** Google Ads API v21: listAccessibleCustomers and GAQL searchStream (campaign and customer). */
export const GOOGLE_ADS_CUSTOMER = "1234567890";
export const googleAdsRows = () => [
  {
    id: "111",
    name: "Brand - Search",
    date: dayAgo(1),
    costMicros: 12_500_000,
    impressions: 1000,
    clicks: 80,
    conversions: 4,
    value: 200,
  },
  {
    id: "111",
    name: "Brand - Search",
    date: dayAgo(2),
    costMicros: 7_500_000,
    impressions: 600,
    clicks: 40,
    conversions: 1,
    value: 50,
  },
  {
    id: "222",
    name: "Generic - Search",
    date: dayAgo(3),
    costMicros: 30_000_000,
    impressions: 3000,
    clicks: 90,
    conversions: 2,
    value: 120,
  },
  {
    id: "222",
    name: "Generic - Search",
    date: dayAgo(20),
    costMicros: 100_000_000,
    impressions: 9000,
    clicks: 300,
    conversions: 5,
    value: 400,
  },
];

export async function startGoogleAdsFake(client = { id: "gads-client", secret: "gads-secret" }) {
  const fake = new FakePlatform("google-ads", GOOGLE_UNAUTHORIZED);
  const rows = googleAdsRows();
  googleOAuthRoutes(fake, client);
  fake.on("GET", /^\/v21\/customers:listAccessibleCustomers$/, (req, res) => {
    if (!fake.authorized(req, res)) return;
    res.send(200, { resourceNames: [`customers/${GOOGLE_ADS_CUSTOMER}`] });
  });
  fake.on("POST", /^\/v21\/customers\/\d+\/googleAds:searchStream$/, (req, res) => {
    if (!fake.authorized(req, res)) return;
    if (req.headers["developer-token"] === undefined) {
      return res.send(401, {
        error: { code: 401, message: "The developer token is not valid.", status: "UNAUTHENTICATED" },
      });
    }
    const query: string = req.json?.query ?? "";
    if (/FROM customer\b/.test(query)) {
      return res.send(200, [
        {
          results: [
            {
              customer: {
                resourceName: `customers/${GOOGLE_ADS_CUSTOMER}`,
                id: GOOGLE_ADS_CUSTOMER,
                descriptiveName: "Acme Search",
              },
            },
          ],
          fieldMask: "customer.id,customer.descriptiveName",
          requestId: "req-1",
        },
      ]);
    }
    const m = /BETWEEN '(\d{4}-\d{2}-\d{2})' AND '(\d{4}-\d{2}-\d{2})'/.exec(query);
    const inRange = rows.filter((r) => !m || (r.date >= m[1]! && r.date <= m[2]!));
    const results = inRange.map((r) => ({
      campaign: {
        resourceName: `customers/${GOOGLE_ADS_CUSTOMER}/campaigns/${r.id}`,
        id: r.id,
        name: r.name,
      },
      // int64 fields are JSON strings in the REST API; doubles are numbers.
      metrics: {
        costMicros: String(r.costMicros),
        impressions: String(r.impressions),
        clicks: String(r.clicks),
        conversions: r.conversions,
        conversionsValue: r.value,
      },
      segments: { date: r.date },
    }));
    // Two batches, as searchStream splits large results.
    const half = Math.ceil(results.length / 2);
    const mask =
      "campaign.id,campaign.name,metrics.costMicros,metrics.impressions,metrics.clicks,metrics.conversions,metrics.conversionsValue,segments.date";
    res.send(200, [
      { results: results.slice(0, half), fieldMask: mask, requestId: "req-2" },
      { results: results.slice(half), fieldMask: mask, requestId: "req-2" },
    ]);
  });
  return fake.start();
}
