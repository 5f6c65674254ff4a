import { FakePlatform, dayAgo } from "./server.js";

/** LinkedIn Marketing API (REST, versioned): OAuth v2, adAccounts, adCampaigns, adAnalytics. */
export const linkedinRows = () => [
  {
    campaign: "801",
    date: dayAgo(1),
    cost: "55.10",
    impressions: 4000,
    clicks: 30,
    conversions: 3,
    value: "600.00",
  },
  {
    campaign: "802",
    date: dayAgo(3),
    cost: "44.90",
    impressions: 1000,
    clicks: 10,
    conversions: 1,
    value: "0",
  },
  {
    campaign: "801",
    date: dayAgo(15),
    cost: "80.00",
    impressions: 6000,
    clicks: 45,
    conversions: 2,
    value: "300.00",
  },
];
const NAMES: Record<string, string> = { "801": "Decision makers", "802": "Engineers" };

export async function startLinkedinFake(client = { id: "li-client", secret: "li-secret" }) {
  const fake = new FakePlatform("linkedin", {
    status: 401,
    serviceErrorCode: 65601,
    code: "REVOKED_ACCESS_TOKEN",
    message: "The token used in the request has been revoked by the user",
  });
  fake.accessTtlSeconds = 60 * 24 * 3600;
  const rows = linkedinRows();
  fake.on("POST", /^\/oauth\/v2\/accessToken$/, (req, res) => {
    if (req.form.get("client_id") !== client.id || req.form.get("client_secret") !== client.secret) {
      return res.send(401, { error: "invalid_client", error_description: "Client authentication failed" });
    }
    const out = fake.grant(req.form);
    res.send(out.status, out.body);
  });
  fake.on("POST", /^\/oauth\/v2\/revoke$/, (req, res) => {
    const t = req.form.get("token") ?? "";
    if (!fake.accessTokens.delete(t))
      return res.send(400, { error: "invalid_request", error_description: "token not found" });
    fake.revoked.push(t);
    res.send(200, {});
  });
  const versioned = (req: { headers: Record<string, unknown> }) =>
    req.headers["linkedin-version"] && req.headers["x-restli-protocol-version"] === "2.0.0";
  fake.on("GET", /^\/rest\/adAccounts$/, (req, res) => {
    if (!fake.authorized(req, res)) return;
    if (!versioned(req)) return res.send(426, { status: 426, message: "A version header is required" });
    res.send(200, {
      elements: [{ id: 507404993, name: "Acme B2B", status: "ACTIVE", currency: "USD" }],
      paging: { count: 10, start: 0, links: [] },
    });
  });
  fake.on("GET", /^\/rest\/adAccounts\/\d+\/adCampaigns$/, (req, res) => {
    if (!fake.authorized(req, res)) return;
    // One campaign per page to exercise pageToken paging.
    const ids = Object.keys(NAMES);
    const i = Number(req.query.get("pageToken") ?? 0);
    res.send(200, {
      elements: [{ id: Number(ids[i]), name: NAMES[ids[i]!] }],
      metadata: i + 1 < ids.length ? { nextPageToken: String(i + 1) } : {},
    });
  });
  fake.on("GET", /^\/rest\/adAnalytics$/, (req, res) => {
    if (!fake.authorized(req, res)) return;
    if (req.query.get("pivot") !== "CAMPAIGN" || req.query.get("timeGranularity") !== "DAILY") {
      return res.send(400, { status: 400, message: "unsupported pivot" });
    }
    const m = /start:\(year:(\d+),month:(\d+),day:(\d+)\),end:\(year:(\d+),month:(\d+),day:(\d+)\)/.exec(
      req.query.get("dateRange") ?? "",
    );
    if (!m) return res.send(400, { status: 400, message: "dateRange is malformed" });
    const p = (y: string, mo: string, d: string) => `${y}-${mo.padStart(2, "0")}-${d.padStart(2, "0")}`;
    const from = p(m[1]!, m[2]!, m[3]!);
    const to = p(m[4]!, m[5]!, m[6]!);
    const dateOf = (s: string) => {
      const [y, mo, d] = s.split("-").map(Number);
      return { year: y, month: mo, day: d };
    };
    res.send(200, {
      elements: rows
        .filter((r) => r.date >= from && r.date <= to)
        .map((r) => ({
          pivotValues: [`urn:li:sponsoredCampaign:${r.campaign}`],
          dateRange: { start: dateOf(r.date), end: dateOf(r.date) },
          costInLocalCurrency: r.cost,
          impressions: r.impressions,
          clicks: r.clicks,
          externalWebsiteConversions: r.conversions,
          conversionValueInLocalCurrency: r.value,
        })),
      paging: { count: 10, start: 0, links: [] },
    });
  });
  return fake.start();
}
