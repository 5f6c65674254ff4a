import { FakePlatform, dayAgo } from "./server.js";

/** Meta Graph API v23.0: oauth/access_token (code and fb_exchange_token), me/adaccounts, insights, permissions. */
export const metaRows = () => [
  {
    campaign_id: "6001",
    campaign_name: "Retargeting",
    date: dayAgo(1),
    spend: "40.25",
    impressions: "5000",
    clicks: "150",
    purchases: "3",
    leads: "2",
    value: "310.00",
  },
  {
    campaign_id: "6001",
    campaign_name: "Retargeting",
    date: dayAgo(4),
    spend: "19.75",
    impressions: "2500",
    clicks: "60",
    purchases: "1",
    leads: "0",
    value: "90.00",
  },
  {
    campaign_id: "6002",
    campaign_name: "Prospecting",
    date: dayAgo(2),
    spend: "100.00",
    impressions: "20000",
    clicks: "400",
    purchases: "2",
    leads: "5",
    value: "150.50",
  },
];

export async function startMetaFake(client = { id: "meta-client", secret: "meta-secret" }, pageSize = 2) {
  const fake = new FakePlatform("meta", {
    error: {
      message: "Error validating access token: Session has expired on Sunday, 22-Nov-26 10:00:00 PST.",
      type: "OAuthException",
      code: 190,
      error_subcode: 463,
      fbtrace_id: "AbCdEf",
    },
  });
  fake.accessTtlSeconds = 60 * 24 * 3600;
  const rows = metaRows();
  fake.on("GET", /^\/v23\.0\/oauth\/access_token$/, (req, res) => {
    const q = req.query;
    if (q.get("client_id") !== client.id || q.get("client_secret") !== client.secret) {
      return res.send(400, {
        error: { message: "Error validating application.", type: "OAuthException", code: 101 },
      });
    }
    if (q.get("grant_type") === "fb_exchange_token") {
      const t = q.get("fb_exchange_token") ?? "";
      // Only a still-valid token can be extended; an expired one means a new consent.
      if ((fake.accessTokens.get(t) ?? 0) <= Date.now()) {
        return res.send(400, {
          error: { message: "Invalid OAuth access token.", type: "OAuthException", code: 190 },
        });
      }
      const { access_token, expires_in } = fake.issueTokens();
      return res.send(200, { access_token, token_type: "bearer", expires_in });
    }
    const out = fake.grant(
      new URLSearchParams({ grant_type: "authorization_code", code: q.get("code") ?? "" }),
    );
    if (out.status !== 200) {
      return res.send(400, {
        error: { message: "Invalid verification code format.", type: "OAuthException", code: 100 },
      });
    }
    const { access_token, expires_in } = out.body as { access_token: string; expires_in: number };
    res.send(200, { access_token, token_type: "bearer", expires_in });
  });
  fake.on("GET", /^\/v23\.0\/me\/adaccounts$/, (req, res) => {
    if (!fake.authorized(req, res)) return;
    res.send(200, {
      data: [{ id: "act_777", account_id: "777", name: "Acme Ads" }],
      paging: { cursors: { before: "b", after: "a" } },
    });
  });
  fake.on("DELETE", /^\/v23\.0\/me\/permissions$/, (req, res) => {
    if (!fake.authorized(req, res)) return;
    fake.revoked.push(String(req.headers.authorization).slice(7));
    res.send(200, { success: true });
  });
  fake.on("GET", /^\/v23\.0\/act_\d+\/insights$/, (req, res) => {
    if (!fake.authorized(req, res)) return;
    const range = JSON.parse(req.query.get("time_range") ?? "{}") as { since: string; until: string };
    const matched = rows.filter((r) => r.date >= range.since && r.date <= range.until);
    const start = req.query.get("after")
      ? Number(Buffer.from(req.query.get("after")!, "base64").toString())
      : 0;
    const page = matched.slice(start, start + pageSize);
    const next = start + pageSize < matched.length;
    const cursor = (n: number) => Buffer.from(String(n)).toString("base64");
    res.send(200, {
      data: page.map((r) => ({
        campaign_id: r.campaign_id,
        campaign_name: r.campaign_name,
        spend: r.spend,
        impressions: r.impressions,
        clicks: r.clicks,
        actions: [
          { action_type: "link_click", value: r.clicks },
          { action_type: "purchase", value: r.purchases },
          { action_type: "offsite_conversion.fb_pixel_purchase", value: r.purchases },
          { action_type: "lead", value: r.leads },
        ],
        action_values: [
          { action_type: "purchase", value: r.value },
          { action_type: "offsite_conversion.fb_pixel_purchase", value: r.value },
        ],
        date_start: r.date,
        date_stop: r.date,
      })),
      paging: {
        cursors: { before: cursor(start), after: cursor(start + pageSize) },
        ...(next ? { next: `${fake.baseUrl}${req.path}?after=${cursor(start + pageSize)}` } : {}),
      },
    });
  });
  return fake.start();
}
