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
