import { FakePlatform } from "./server.js";

/** HubSpot: OAuth v1 token/revoke, account-info v3, CRM v3 search on contacts and deals. */
export const HUBSPOT_PRIVATE_TOKEN = "pat-na1-11111111-2222-3333-4444-555555555555";
const iso = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString();

export const hubspotData = () => ({
  contacts: <Array<{ id: string; properties: Record<string, string | null> }>>[
    {
      id: "501",
      properties: {
        email: "ada@example.com",
        firstname: "Ada",
        lastname: "Lovelace",
        lastmodifieddate: iso(3),
      },
    },
    {
      id: "502",
      properties: {
        email: "grace@example.com",
        firstname: "Grace",
        lastname: "Hopper",
        lastmodifieddate: iso(2),
      },
    },
    { id: "503", properties: { email: null, firstname: "No", lastname: "Email", lastmodifieddate: iso(1) } },
  ],
  deals: [
    {
      id: "901",
      properties: {
        dealname: "Acme annual",
        amount: "1000.50",
        dealstage: "closedwon",
        closedate: iso(1),
        hs_lastmodifieddate: iso(1),
        deal_currency_code: "USD",
      },
    },
    {
      id: "902",
      properties: {
        dealname: "Beta pilot",
        amount: "250",
        dealstage: "closedwon",
        closedate: iso(5),
        hs_lastmodifieddate: iso(5),
        deal_currency_code: "USD",
      },
    },
    {
      id: "903",
      properties: {
        dealname: "Gamma",
        amount: "999",
        dealstage: "appointmentscheduled",
        closedate: null,
        hs_lastmodifieddate: iso(2),
        deal_currency_code: "USD",
      },
    },
  ] as Array<{ id: string; properties: Record<string, string | null> }>,
});

export async function startHubspotFake(client = { id: "hs-client", secret: "hs-secret" }, pageSize = 2) {
  const fake = new FakePlatform("hubspot", {
    status: "error",
    message: "Authentication credentials not found. This API supports OAuth 2.0 authentication.",
    correlationId: "a1b2c3",
    category: "INVALID_AUTHENTICATION",
  });
  const data = hubspotData();
  fake.on("POST", /^\/oauth\/v1\/token$/, (req, res) => {
    if (req.form.get("client_id") !== client.id || req.form.get("client_secret") !== client.secret) {
      return res.send(400, { status: "BAD_CLIENT_ID", message: "missing or unknown client id" });
    }
    const out = fake.grant(req.form);
    res.send(
      out.status,
      out.status === 200 ? out.body : { status: "BAD_AUTH_CODE", message: "auth code not found" },
    );
  });
  fake.on("DELETE", /^\/oauth\/v1\/refresh-tokens\/.+$/, (req, res) => {
    const t = decodeURIComponent(req.path.split("/").pop()!);
    if (!fake.refreshTokens.delete(t))
      return res.send(404, { status: "error", message: "refresh token not found" });
    fake.revoked.push(t);
    res.send(204, undefined);
  });
  fake.on("GET", /^\/account-info\/v3\/details$/, (req, res) => {
    if (!fake.authorized(req, res, [HUBSPOT_PRIVATE_TOKEN])) return;
    res.send(200, {
      portalId: 62515,
      accountType: "STANDARD",
      timeZone: "US/Eastern",
      companyCurrency: "USD",
      uiDomain: "app.hubspot.com",
      dataHostingLocation: "na1",
    });
  });
  fake.on("POST", /^\/crm\/v3\/objects\/(contacts|deals)\/search$/, (req, res) => {
    if (!fake.authorized(req, res, [HUBSPOT_PRIVATE_TOKEN])) return;
    const object = req.path.split("/")[4] as "contacts" | "deals";
    const filter = req.json.filterGroups?.[0]?.filters?.[0];
    const prop = filter?.propertyName as string;
    const since = Number(filter?.value ?? 0);
    const all = data[object]
      .filter((o) => Date.parse(o.properties[prop] ?? "") >= since)
      .sort((a, b) => Date.parse(a.properties[prop]!) - Date.parse(b.properties[prop]!));
    const after = Number(req.json.after ?? 0);
    const limit = Math.min(Number(req.json.limit ?? 10), pageSize);
    const page = all.slice(after, after + limit).map((o) => ({
      id: o.id,
      properties: { ...o.properties, hs_object_id: o.id },
      createdAt: o.properties[prop],
      updatedAt: o.properties[prop],
      archived: false,
    }));
    res.send(200, {
      total: all.length,
      results: page,
      ...(after + limit < all.length
        ? { paging: { next: { after: String(after + limit), link: "?after=" } } }
        : {}),
    });
  });
  return fake.start();
}
