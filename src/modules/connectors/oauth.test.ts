import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signState } from "./oauth.js";
import { type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { startGa4Fake } from "../../../test/fakes/ga4.js";
import { startGoogleAdsFake } from "../../../test/fakes/google-ads.js";
import { startHubspotFake } from "../../../test/fakes/hubspot.js";
import { startLinkedinFake } from "../../../test/fakes/linkedin.js";
import { startMetaFake } from "../../../test/fakes/meta.js";
import { QBO_REALM, startQuickbooksFake } from "../../../test/fakes/quickbooks.js";
import { type FakePlatform, consent } from "../../../test/fakes/server.js";
import { PUBLIC_URL, connectOAuth, platformConfig } from "./connectors.testing.js";

interface Case {
  type: string;
  client: { id: string; secret: string };
  fake: FakePlatform;
  authPath: string;
  scope: string;
  pkce: boolean;
  account: string;
  callback?: Record<string, string>;
}
let t: TestApp;
const cases: Case[] = [];

beforeAll(async () => {
  const c = (id: string) => ({ id: `${id}-client`, secret: `${id}-secret` });
  cases.push(
    {
      type: "search_ads",
      client: c("gads"),
      fake: await startGoogleAdsFake(c("gads")),
      authPath: "/o/oauth2/v2/auth",
      scope: "https://www.googleapis.com/auth/adwords",
      pkce: true,
      account: "Acme Search",
    },
    {
      type: "web_analytics",
      client: c("ga4"),
      fake: await startGa4Fake(c("ga4")),
      authPath: "/o/oauth2/v2/auth",
      scope: "https://www.googleapis.com/auth/analytics.readonly",
      pkce: true,
      account: "acme.com - GA4",
    },
    {
      type: "crm",
      client: c("hs"),
      fake: await startHubspotFake(c("hs")),
      authPath: "/oauth/authorize",
      scope: "oauth crm.objects.contacts.read crm.objects.deals.read",
      pkce: false,
      account: "HubSpot portal 62515",
    },
    {
      type: "social_ads",
      client: c("meta"),
      fake: await startMetaFake(c("meta")),
      authPath: "/v23.0/dialog/oauth",
      scope: "ads_read",
      pkce: false,
      account: "Acme Ads",
    },
    {
      type: "professional_network_ads",
      client: c("li"),
      fake: await startLinkedinFake(c("li")),
      authPath: "/oauth/v2/authorization",
      scope: "r_ads r_ads_reporting",
      pkce: false,
      account: "Acme B2B",
    },
    {
      type: "accounting",
      client: c("qbo"),
      fake: await startQuickbooksFake(c("qbo")),
      authPath: "/connect/oauth2",
      scope: "com.intuit.quickbooks.accounting",
      pkce: false,
      account: "Acme Books LLC",
      callback: { realmId: QBO_REALM },
    },
  );
  t = await startTestApp(platformConfig(cases.map((k) => [k.type, k.fake, k.client])));
});
afterAll(async () => {
  await t.close();
  for (const k of cases) await k.fake.close();
});

const rawConnectors = (projectId: string) =>
  t.app.db.selectFrom("connectors").selectAll().where("project_id", "=", projectId).execute();

describe("OAuth round trip per platform", () => {
  it.each(["search_ads", "web_analytics", "crm", "social_ads", "professional_network_ads", "accounting"])(
    "%s: consent URL, callback, connected with the account name",
    async (type) => {
      const k = cases.find((x) => x.type === type)!;
      const a = await t.tenant();
      const { authorize, location } = await connectOAuth(a, type, k.fake, k.callback);
      expect(authorize.origin).toBe(k.fake.baseUrl);
      expect(authorize.pathname).toBe(k.authPath);
      expect(authorize.searchParams.get("client_id")).toBe(k.client.id);
      expect(authorize.searchParams.get("response_type")).toBe("code");
      expect(authorize.searchParams.get("redirect_uri")).toBe(
        `${PUBLIC_URL}/api/connectors/${type}/callback`,
      );
      expect(authorize.searchParams.get("scope")).toBe(k.scope);
      expect(authorize.searchParams.get("state")).toMatch(/^[\w-]+\.[\w-]+$/);
      if (k.pkce) {
        expect(authorize.searchParams.get("code_challenge")).toMatch(/^[\w-]{43}$/);
        expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
      } else {
        expect(authorize.searchParams.get("code_challenge")).toBeNull();
      }
      expect(location).toBe(`${PUBLIC_URL}/integrations?connected=${type}`);
      const list = await a.get("/api/connectors");
      expect(list.body).toEqual([
        {
          type,
          status: "connected",
          lastSync: null,
          accountName: k.account,
          connectedAt: expect.any(String),
          lastError: null,
        },
      ]);
      // The token endpoint was really called (with PKCE verified by the fake where it applies).
      expect(k.fake.accessTokens.size).toBeGreaterThan(0);
    },
  );
});

describe("state and consent failures store nothing", () => {
  const google = () => cases[0]!;

  it("tampered state → ?error=invalid_state", async () => {
    const a = await t.tenant();
    const res = await a.get("/api/connectors/search_ads/auth", { as: "admin" });
    const { code, state } = consent(google().fake, String(res.headers.location));
    const [body, sig] = state.split(".");
    const forged = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(body!, "base64url").toString()), p: "prj_other" }),
    ).toString("base64url");
    const cb = await a.get("/api/connectors/search_ads/callback", {
      as: "admin",
      query: { code, state: `${forged}.${sig}` },
    });
    expect(cb.headers.location).toBe(`${PUBLIC_URL}/integrations?error=invalid_state`);
    expect(await rawConnectors(a.projectId)).toHaveLength(0);
  });

  it("expired state → ?error=expired_state", async () => {
    const a = await t.tenant();
    const key = t.app.secrets.derive("oauth-state");
    const state = signState(key, {
      n: "ost_x",
      w: a.workspaceId,
      p: a.projectId,
      u: a.admin.id,
      t: "search_ads",
      e: Date.now() - 1,
    });
    const code = google().fake.issueCode();
    const cb = await a.get("/api/connectors/search_ads/callback", { as: "admin", query: { code, state } });
    expect(cb.headers.location).toBe(`${PUBLIC_URL}/integrations?error=expired_state`);
    expect(await rawConnectors(a.projectId)).toHaveLength(0);
  });

  it("replayed state → ?error=state_used, first use still connected once", async () => {
    const a = await t.tenant();
    const res = await a.get("/api/connectors/search_ads/auth", { as: "admin" });
    const { code, state } = consent(google().fake, String(res.headers.location));
    const first = await a.get("/api/connectors/search_ads/callback", { as: "admin", query: { code, state } });
    expect(first.headers.location).toBe(`${PUBLIC_URL}/integrations?connected=search_ads`);
    await t.app.db.deleteFrom("connectors").where("project_id", "=", a.projectId).execute();
    const again = await a.get("/api/connectors/search_ads/callback", { as: "admin", query: { code, state } });
    expect(again.headers.location).toBe(`${PUBLIC_URL}/integrations?error=state_used`);
    expect(await rawConnectors(a.projectId)).toHaveLength(0);
  });

  it("state of another connector type is refused", async () => {
    const a = await t.tenant();
    const res = await a.get("/api/connectors/search_ads/auth", { as: "admin" });
    const { code, state } = consent(google().fake, String(res.headers.location));
    const cb = await a.get("/api/connectors/web_analytics/callback", { as: "admin", query: { code, state } });
    expect(cb.headers.location).toBe(`${PUBLIC_URL}/integrations?error=invalid_state`);
    expect(await rawConnectors(a.projectId)).toHaveLength(0);
  });

  it("denied consent → ?error=access_denied", async () => {
    const a = await t.tenant();
    const res = await a.get("/api/connectors/social_ads/auth", { as: "admin" });
    const state = new URL(String(res.headers.location)).searchParams.get("state")!;
    const cb = await a.get("/api/connectors/social_ads/callback", {
      as: "admin",
      query: { error: "access_denied", error_reason: "user_denied", state },
    });
    expect(cb.headers.location).toBe(`${PUBLIC_URL}/integrations?error=access_denied`);
    expect(await rawConnectors(a.projectId)).toHaveLength(0);
  });

  it("a code the platform refuses → ?error=exchange_failed", async () => {
    const a = await t.tenant();
    const res = await a.get("/api/connectors/crm/auth", { as: "admin" });
    const state = new URL(String(res.headers.location)).searchParams.get("state")!;
    const cb = await a.get("/api/connectors/crm/callback", {
      as: "admin",
      query: { code: "code_forged", state },
    });
    expect(cb.headers.location).toBe(`${PUBLIC_URL}/integrations?error=exchange_failed`);
    expect(await rawConnectors(a.projectId)).toHaveLength(0);
  });

  it("a PKCE verifier that does not match is refused by the platform → exchange_failed", async () => {
    const a = await t.tenant();
    const res = await a.get("/api/connectors/web_analytics/auth", { as: "admin" });
    const url = new URL(String(res.headers.location));
    const code = cases[1]!.fake.issueCode("not-the-challenge");
    const cb = await a.get("/api/connectors/web_analytics/callback", {
      as: "admin",
      query: { code, state: url.searchParams.get("state")! },
    });
    expect(cb.headers.location).toBe(`${PUBLIC_URL}/integrations?error=exchange_failed`);
  });

  it("an account lookup the platform refuses → ?error=account_failed and the fresh grant is revoked", async () => {
    const a = await t.tenant();
    const fake = google().fake;
    const res = await a.get("/api/connectors/search_ads/auth", { as: "admin" });
    const { code, state } = consent(fake, String(res.headers.location));
    const revoked = fake.revoked.length;
    fake.failWith = {
      status: 403,
      body: {
        error: { code: 403, message: "The caller does not have permission", status: "PERMISSION_DENIED" },
      },
    };
    try {
      const cb = await a.get("/api/connectors/search_ads/callback", { as: "admin", query: { code, state } });
      expect(cb.headers.location).toBe(`${PUBLIC_URL}/integrations?error=account_failed`);
    } finally {
      fake.failWith = null;
    }
    expect(fake.revoked.length).toBe(revoked + 1);
    expect(await rawConnectors(a.projectId)).toHaveLength(0);
  });

  it("no state at all → invalid_state", async () => {
    const a = await t.tenant();
    const cb = await a.get("/api/connectors/crm/callback", { as: "admin", query: { code: "x" } });
    expect(cb.headers.location).toBe(`${PUBLIC_URL}/integrations?error=invalid_state`);
  });
});

describe("auth endpoint guards", () => {
  it("API keys cannot start a consent (403); no credentials is 401", async () => {
    const a = await t.tenant();
    expect((await a.get("/api/connectors/crm/auth")).status).toBe(403);
    expect((await a.get("/api/connectors/crm/auth", { as: "none" })).status).toBe(401);
  });

  it("unknown type is 400; payments has no OAuth (400)", async () => {
    const a = await t.tenant();
    const bad = await a.get("/api/connectors/fax/auth", { as: "admin" });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("VALIDATION_ERROR");
    const pay = await a.get("/api/connectors/payments/auth", { as: "admin" });
    expect(pay.status).toBe(400);
    expect(pay.body.error).toMatch(/POST \/api\/connectors/);
  });
});

describe("choosing the project from the browser", () => {
  it("?projectId= connects that project of the workspace; another workspace's project is 404", async () => {
    const a = await t.tenant();
    const other = await t.tenant();
    const second = await a.post("/api/projects", { name: "Second" }, { as: "admin" });
    expect(second.status).toBe(201);
    const res = await a.get(`/api/connectors/crm/auth?projectId=${second.body.id}`, { as: "admin" });
    expect(res.status).toBe(302);
    const hs = cases.find((k) => k.type === "crm")!.fake;
    const { code, state } = consent(hs, String(res.headers.location));
    const cb = await a.get("/api/connectors/crm/callback", { as: "admin", query: { code, state } });
    expect(cb.headers.location).toBe(`${PUBLIC_URL}/integrations?connected=crm`);
    expect(await rawConnectors(second.body.id)).toHaveLength(1);
    expect(await rawConnectors(a.projectId)).toHaveLength(0);
    const foreign = await a.get(`/api/connectors/crm/auth?projectId=${other.projectId}`, { as: "admin" });
    expect(foreign.status).toBe(404);
  });
});

describe("platform without client config", () => {
  it("answers 400 naming the variables to set", async () => {
    const bare = await startTestApp();
    try {
      const a = await bare.tenant();
      const res = await a.get("/api/connectors/social_ads/auth", { as: "admin" });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error:
          "social_ads OAuth is not configured on this server: set SOCIAL_ADS_CLIENT_ID and SOCIAL_ADS_CLIENT_SECRET",
        code: "VALIDATION_ERROR",
        status: 400,
        requestId: expect.any(String),
      });
    } finally {
      await bare.close();
    }
  });
});
