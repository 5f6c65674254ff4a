import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER_UA, type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";

/**
 * Countries at ingest (docs/privacy.md): a browser's request address gives its events' country
 * through the bundled database; the address is never stored; an event's own country wins; a
 * server's address says nothing about the person; GEOIP=off turns it off.
 */

const GB = "81.2.69.160";
const NL = "193.0.6.139";

let app: TestApp;
let t: Tenant;

beforeAll(async () => {
  app = await startTestApp({ trustProxy: true });
  t = await app.tenant();
});
afterAll(async () => app?.close());

const send = (
  tt: Tenant,
  body: Record<string, unknown>,
  address: string,
  key: "public" | "secret" = "public",
) =>
  tt.post(
    "/api/events",
    { projectKey: key === "public" ? tt.publicKey : tt.apiKey, ...body },
    { as: "none", headers: { "user-agent": BROWSER_UA, "x-forwarded-for": address } },
  );

/** The stored data of the project's events, by type. */
async function dataOf(a: TestApp, tt: Tenant): Promise<Map<string, Record<string, unknown>>> {
  const rows = await a.app.db
    .selectFrom("events")
    .select(["type", "data"])
    .where("project_id", "=", tt.project.id)
    .execute();
  return new Map(rows.map((r) => [r.type, typeof r.data === "string" ? JSON.parse(r.data) : r.data]));
}

describe("countries from the request's address", () => {
  it("gives a browser's events their country, and stores the address nowhere", async () => {
    expect(
      (await send(t, { type: "pageview", visitorId: "v-gb", url: "https://a.example/" }, GB)).status,
    ).toBe(200);
    const batch = {
      events: [
        { type: "clicked", visitorId: "v-nl", url: "https://a.example/x" },
        { type: "kept", visitorId: "v-nl", url: "https://a.example/y", data: { $country: "FR" } },
      ],
    };
    expect((await send(t, batch, NL)).status).toBe(200);
    const data = await dataOf(app, t);
    expect(data.get("pageview")?.$country).toBe("GB");
    expect(data.get("clicked")?.$country).toBe("NL");
    expect(data.get("kept")?.$country).toBe("FR");

    // Every row of every table, both row stores: neither address appears anywhere.
    const tables = await app.app.db.introspection.getTables();
    expect(tables.length).toBeGreaterThan(20);
    for (const table of tables) {
      const rows = await app.app.db
        .selectFrom((table.schema ? `${table.schema}.${table.name}` : table.name) as "events")
        .selectAll()
        .execute();
      const text = JSON.stringify(rows);
      expect(text.includes(GB) || text.includes(NL), table.name).toBe(false);
    }
  });

  it("leaves a server's events (a secret key) without one", async () => {
    const s = await app.tenant();
    const res = await send(
      s,
      { events: [{ type: "server_side", visitorId: "v-s", url: "https://a.example/" }] },
      GB,
      "secret",
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await dataOf(app, s)).get("server_side")).not.toHaveProperty("$country");
  });

  it("does nothing with GEOIP=off", async () => {
    const off = await startTestApp({ trustProxy: true, geoip: "off" });
    try {
      const o = await off.tenant();
      expect(
        (await send(o, { type: "pageview", visitorId: "v", url: "https://a.example/" }, GB)).status,
      ).toBe(200);
      expect((await dataOf(off, o)).get("pageview")).not.toHaveProperty("$country");
    } finally {
      await off.close();
    }
  });
});

describe("an address the message carries (a server relaying for its users)", () => {
  /** The countries of the web view's visits, value → visitors. */
  const countries = async (tt: Tenant) => {
    const res = await tt.post("/api/analytics/web", { period: "7d", lists: ["countries"] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const rows = res.body.lists.countries.rows as { value: string; visitors: number }[];
    return Object.fromEntries(rows.map((r) => [r.value, r.visitors]));
  };

  /** Neither address in any row of any table. */
  async function nowhere(addresses: string[]) {
    for (const table of await app.app.db.introspection.getTables()) {
      const rows = await app.app.db
        .selectFrom((table.schema ? `${table.schema}.${table.name}` : table.name) as "events")
        .selectAll()
        .execute();
      const text = JSON.stringify(rows);
      for (const a of addresses) expect(text.includes(a), `${a} in ${table.name}`).toBe(false);
    }
  }

  it("Segment: each message's context.ip gives its country, not the request's; the address is stored nowhere", async () => {
    const s = await app.tenant();
    const page = (anonymousId: string, ip: string) => ({
      type: "page",
      anonymousId,
      messageId: `${anonymousId}-${Date.now()}`,
      context: { ip, page: { url: "https://a.example/pricing" } },
    });
    const res = await s.post(
      "/v1/batch",
      { batch: [page("seg-gb", GB), page("seg-nl", NL)] },
      {
        as: "none",
        headers: {
          authorization: `Basic ${Buffer.from(`${s.apiKey}:`).toString("base64")}`,
          "user-agent": "analytics-node-next/latest",
          "x-forwarded-for": "8.8.8.8",
        },
      },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await countries(s)).toEqual({ GB: 1, NL: 1 });
    await nowhere([GB, NL]);
  });

  it("PostHog: each event's $ip gives its country, and $ip is not kept in the event's data", async () => {
    const s = await app.tenant();
    const pageview = (distinct_id: string, ip: string) => ({
      event: "$pageview",
      properties: { distinct_id, $current_url: "https://a.example/pricing", $ip: ip },
      timestamp: new Date().toISOString(),
    });
    const res = await app.app.inject({
      method: "POST",
      url: "/batch/",
      payload: { api_key: s.publicKey, batch: [pageview("ph-gb", GB), pageview("ph-nl", NL)] },
      headers: { "user-agent": "posthog-node/4.0.0", "x-forwarded-for": "8.8.8.8" },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(await countries(s)).toEqual({ GB: 1, NL: 1 });
    await nowhere([GB, NL]);
  });
});
