import { createHash } from "node:crypto";
import type { AddressInfo } from "node:net";
import { GrowthBookClient } from "@growthbook/growthbook";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, type TestApp, startTestApp } from "../../../test/helpers/app.js";
import { seedCohortProject } from "../analytics/filters/filter-fixture.testing.js";

/**
 * Cohort-targeted flags under a GrowthBook SDK that evaluates locally: a server SDK that fetches
 * the payload with the secret key gets each cohort's members hashed (GrowthBook's secure-attribute
 * form) and answers what the server answers, for every person; no payload holds a member's id.
 * People: filter-fixture.testing.ts's (phone bought, laptop looked, mac is lead Lmac on the free
 * plan, L1 a server-only lead) and 24 more visitors, every third of whom bought.
 */
let t: TestApp;
let base: string;
let a: Tenant;
let buyers: string;
let free: string;
const extra = Array.from({ length: 24 }, (_, i) => `visitor-${i}`);

beforeAll(async () => {
  t = await startTestApp({ rateLimits: { events: 0, reads: 0, writes: 0 } });
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  a = await t.tenant();
  ({ buyers, free } = await seedCohortProject(a));
  const at = new Date(Date.now() - 3_600_000).toISOString();
  const events = extra.flatMap((visitorId, i) => [
    { type: "pageview", visitorId, url: "https://shop.example/", timestamp: at },
    ...(i % 3 === 0
      ? [{ type: "purchase", visitorId, url: "https://shop.example/thanks", timestamp: at }]
      : []),
  ]);
  const sent = await a.post("/api/events", { projectKey: a.publicKey, events }, { as: "none" });
  expect(sent.status, JSON.stringify(sent.body)).toBeLessThan(300);
  const flag = await a.post("/api/flags", {
    key: "checkout",
    valueType: "string",
    defaultValue: "off",
    rules: [
      { id: "free-lead", type: "force", condition: { leadId: { $inGroup: free } }, value: "free-lead" },
      // a cohort test beside a plain test on the same attribute, and one inside $not
      {
        id: "buyer-not-v0",
        type: "force",
        condition: { id: { $inGroup: buyers, $ne: "visitor-0" } },
        value: "buyer",
      },
      {
        id: "free-visitor",
        type: "force",
        condition: { id: { $not: { $notInGroup: free } } },
        value: "free",
      },
      {
        id: "looker",
        type: "force",
        condition: { $or: [{ id: { $notInGroup: buyers } }, { leadId: { $inGroup: free } }] },
        value: "looker",
      },
    ],
  });
  expect(flag.status, JSON.stringify(flag.body)).toBe(201);
});
afterAll(async () => t.close());

const sha256 = (salt: string, value: string) =>
  createHash("sha256")
    .update(salt + value)
    .digest("hex");

async function serverSdk(key = a.apiKey) {
  const client = new GrowthBookClient({
    apiHost: base,
    clientKey: a.publicKey,
    apiHostRequestHeaders: { authorization: `Bearer ${key}` },
  });
  // The first server payload computes both cohorts on a reader thread: allow a loaded machine.
  const init = await client.init({ timeout: 30_000 });
  expect(init.success, String(init.error)).toBe(true);
  return client;
}

describe("cohort targeting for a server SDK that evaluates locally", () => {
  it("answers for every person what the server's evaluation answers", async () => {
    const { targetingSalt: salt } = (await a.get("/api/flag-settings")).body as { targetingSalt: string };
    expect(salt).toMatch(/^[0-9a-f]{32}$/);
    const client = await serverSdk();
    const ids = ["phone", "laptop", "mac", "nobody-knows-me", ...extra];
    const seen = new Set<string>();
    for (const id of ids)
      for (const leadId of [undefined, "Lmac", "L1"]) {
        const attributes = { id, ...(leadId ? { leadId } : {}) };
        const server = (await a.post("/api/flags/checkout/evaluate", { attributes })).body.value;
        const local = client.evalFeature("checkout", {
          attributes: {
            ...attributes,
            idHash: sha256(salt, id),
            ...(leadId ? { leadIdHash: sha256(salt, leadId) } : {}),
          },
        }).value;
        expect(local, JSON.stringify(attributes)).toBe(server);
        seen.add(server as string);
      }
    // Every rule decided someone, so each cohort test was exercised both ways.
    expect([...seen].sort()).toEqual(["buyer", "free", "free-lead", "looker", "off"]);
  });

  it("holds members only hashed, and only for the project's secret key", async () => {
    const withKey = await fetch(`${base}/api/features/${a.publicKey}`, {
      headers: { authorization: `Bearer ${a.apiKey}` },
    });
    expect(withKey.status).toBe(200);
    expect(withKey.headers.get("cache-control")).toContain("private");
    const text = await withKey.text();
    const groups = JSON.parse(text).savedGroups as Record<string, string[]>;
    expect(groups[`${buyers}.id`]).toHaveLength(1 + extra.filter((_, i) => i % 3 === 0).length);
    expect(groups[`${free}.leadId`]).toHaveLength(1);
    for (const id of ["phone", "mac", "Lmac", "visitor-3"]) expect(text).not.toContain(`"${id}"`);

    const publicPayload = (await a.get(`/api/features/${a.publicKey}`, { as: "none" })).body;
    expect(publicPayload.savedGroups ?? {}).toEqual({});
    // Without the secret key, local evaluation sees empty cohorts (remote evaluation is the way).
    const browser = new GrowthBookClient({ apiHost: base, clientKey: a.publicKey });
    await browser.init({ timeout: 5000 });
    expect(browser.evalFeature("checkout", { attributes: { id: "phone" } }).value).toBe("looker");
    expect((await a.post("/api/flags/checkout/evaluate", { attributes: { id: "phone" } })).body.value).toBe(
      "buyer",
    );

    const other = await t.tenant();
    for (const key of [other.apiKey, a.publicKey, "svc_key_unknown"]) {
      const res = await fetch(`${base}/api/features/${a.publicKey}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.status, key).toBe(401);
      expect((await res.json()).code).toBe("UNAUTHORIZED");
    }
  });
});
