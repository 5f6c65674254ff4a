import { gunzipSync } from "node:zlib";
import type { AddressInfo } from "node:net";
import { PostHog } from "posthog-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, startTestApp, type TestApp } from "../../../../test/helpers/app.js";

/**
 * PostHog's own Node SDK (posthog-node) pointed at Lift by `host` alone, as a team switches an
 * existing integration: its batches (gzip by default), identify, alias, groupIdentify, and a
 * retried batch whose uuids were already stored.
 */
let t: TestApp;
let base: string;
/** What the SDK sent: path, Content-Encoding and the decompressed body of each POST. */
const seen: { url: string; encoding: string | undefined; body: unknown }[] = [];
beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => t.close());

/** The SDK's own requests, through its `fetch` option: recorded, then sent as they are. */
const recordingFetch = async (url: string, options: { headers?: Record<string, string>; body?: unknown }) => {
  const headers = options.headers ?? {};
  const raw = options.body;
  if (raw !== undefined) {
    const bytes =
      typeof raw === "string" ? Buffer.from(raw) : Buffer.from(await new Response(raw as Blob).arrayBuffer());
    const encoding = headers["Content-Encoding"];
    seen.push({
      url: new URL(url).pathname,
      encoding,
      body: JSON.parse((encoding === "gzip" ? gunzipSync(bytes) : bytes).toString("utf8")),
    });
  }
  return fetch(url, options as RequestInit);
};

const sdk = (key: string) =>
  new PostHog(key, {
    host: base,
    flushAt: 50,
    flushInterval: 0,
    fetchRetryCount: 0,
    fetch: recordingFetch as never,
  });

/** The SDK's errors, to be none. */
function errorsOf(client: PostHog): unknown[] {
  const errors: unknown[] = [];
  client.on("error", (e) => errors.push(e));
  return errors;
}

const recent = async (a: Tenant) =>
  (await a.get("/api/events/recent?limit=200")).body as {
    type: string;
    visitorId: string;
    leadId: string | null;
    data: Record<string, unknown>;
  }[];
const lead = async (a: Tenant, id: string) => (await a.get(`/api/leads/${id}`)).body;

describe("posthog-node against Lift", () => {
  it("capture, identify, alias and groupIdentify: stored, the visitor linked, traits on the lead", async () => {
    const a = await t.tenant();
    const client = sdk(a.apiKey);
    const errors = errorsOf(client);
    client.capture({ distinctId: "anon-1", event: "Signed Up", properties: { plan: "pro" } });
    client.identify({
      distinctId: "user-1",
      properties: { $set: { email: "u1@example.com" }, $anon_distinct_id: "anon-1" },
    });
    client.alias({ distinctId: "user-1", alias: "anon-2" });
    client.groupIdentify({
      groupType: "company",
      groupKey: "acme",
      properties: { name: "Acme" },
      distinctId: "user-1",
    });
    client.groupIdentify({ groupType: "company", groupKey: "globex", properties: { name: "Globex" } });
    await client.shutdown();
    expect(errors).toEqual([]);
    // The SDK compresses its batches by default: they arrived as gzip on /batch/.
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((s) => s.url === "/batch/" && s.encoding === "gzip")).toBe(true);

    const events = await recent(a);
    expect(events.map((e) => e.type).sort()).toEqual([
      "$create_alias",
      "$group",
      "$groupidentify",
      "$identify",
      "Signed Up",
    ]);
    expect(events.find((e) => e.type === "Signed Up")).toMatchObject({
      visitorId: "anon-1",
      leadId: null,
      data: { plan: "pro" },
    });
    expect(events.find((e) => e.type === "$identify")).toMatchObject({
      visitorId: "anon-1",
      leadId: "user-1",
    });
    const l = await lead(a, "user-1");
    expect(l.properties).toEqual({ email: "u1@example.com", groups: { acme: { name: "Acme" } } });
    expect(l.visitors.map((v: { visitorId: string }) => v.visitorId).sort()).toEqual([
      "anon-1",
      "anon-2",
      "user-1",
    ]);
    // A group without a person (posthog-node's own distinct id for it) is kept as an event only.
    expect(events.find((e) => e.type === "$groupidentify")).toMatchObject({
      leadId: null,
      data: { $group_type: "company", $group_key: "globex", $group_set: { name: "Globex" } },
    });
  });

  it("a batch sent again with the same uuids is stored once", async () => {
    const a = await t.tenant();
    const uuids = ["0190aaaa-0000-7000-8000-000000000001", "0190aaaa-0000-7000-8000-000000000002"];
    for (let round = 0; round < 2; round++) {
      const client = sdk(a.apiKey);
      const errors = errorsOf(client);
      for (const [i, uuid] of uuids.entries())
        client.capture({ distinctId: "r", event: "Retried", properties: { i }, uuid });
      await client.shutdown();
      expect(errors).toEqual([]);
    }
    const events = (await recent(a)).filter((e) => e.type === "Retried");
    expect(events.map((e) => e.data.i).sort()).toEqual([0, 1]);
  });

  it("an unknown key fails the delivery (401); nothing is stored", async () => {
    const a = await t.tenant();
    const client = sdk("svc_key_not_a_key");
    const errors = errorsOf(client);
    client.capture({ distinctId: "x", event: "Lost" });
    await client.shutdown();
    expect(String(errors[0])).toMatch(/401/);
    expect(await recent(a)).toEqual([]);
  });
});
