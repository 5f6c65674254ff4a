import { expect } from "vitest";
import type { Config } from "../../config.js";
import type { Tenant } from "../../../test/helpers/app.js";
import { consent, type FakePlatform } from "../../../test/fakes/server.js";

export const PUBLIC_URL = "http://localhost:3000";

/** Platform config pointing a connector type at its fake. */
/** The Google Ads developer token the test config carries (sent as `developer-token`). */
export const TEST_DEVELOPER_TOKEN = "dev-token-for-tests";

export function platformConfig(
  entries: Array<[type: string, fake: FakePlatform, client?: { id: string; secret: string }]>,
): Partial<Config> {
  const platforms: Config["platforms"] = {};
  for (const [type, fake, client] of entries) {
    platforms[type.toUpperCase()] = {
      baseUrl: fake.baseUrl,
      clientId: client?.id,
      clientSecret: client?.secret,
      developerToken: type === "search_ads" ? TEST_DEVELOPER_TOKEN : undefined,
    };
  }
  return { platforms };
}

/** Full OAuth round trip as a browser does it: auth redirect → consent → callback, in the admin's signed-in browser. */
export async function connectOAuth(
  a: Tenant,
  type: string,
  fake: FakePlatform,
  extraCallback: Record<string, string> = {},
): Promise<{ authorize: URL; location: string }> {
  const res = await a.get(`/api/connectors/${type}/auth`, { as: "admin" });
  expect(res.status).toBe(302);
  const authorize = new URL(String(res.headers.location));
  const { code, state } = consent(fake, authorize.toString());
  const cb = await a.get(`/api/connectors/${type}/callback`, {
    as: "admin",
    query: { code, state, ...extraCallback },
  });
  expect(cb.status).toBe(302);
  return { authorize, location: String(cb.headers.location) };
}

/** Polls until `fn` returns a truthy value (jobs retried with a short delay), or fails. */
export async function eventually<T>(fn: () => Promise<T | undefined | null | false>, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}
