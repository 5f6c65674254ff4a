import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Analytics } from "@segment/analytics-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, startTestApp, type TestApp } from "../../../../test/helpers/app.js";
import { storedEvents, storedMessageIds } from "./segment.testing.js";

/**
 * Segment's own Node SDK (@segment/analytics-node) pointed at Lift by its `host` and `path`
 * options, as a team switches an existing integration: batching, flush, closeAndFlush, and its
 * retries after a failed or lost answer.
 */
let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => t.close());

const sdk = (
  writeKey: string,
  host: string,
  extra: Partial<ConstructorParameters<typeof Analytics>[0]> = {},
) => new Analytics({ writeKey, host, path: "/v1/batch", flushAt: 5, flushInterval: 100, ...extra });

/** The SDK's errors, to be none. */
function errorsOf(analytics: Analytics): unknown[] {
  const errors: unknown[] = [];
  analytics.on("error", (e) => errors.push(e));
  return errors;
}

/**
 * A proxy in front of Lift that spoils the answer to the first batch in the given way after Lift
 * has handled it: `drop` closes the connection instead of answering, `late` answers after the
 * SDK's timeout. The server committed the batch both times; the SDK only knows it failed.
 */
async function spoilingProxy(
  mode: "drop" | "late",
): Promise<{ url: string; posts: () => number; close: () => Promise<void> }> {
  let posts = 0;
  const server: Server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const first = ++posts === 1;
    const answer = await fetch(base + req.url, {
      method: req.method,
      headers: { ...(req.headers as Record<string, string>), host: new URL(base).host },
      body: Buffer.concat(chunks),
    });
    const text = await answer.text();
    if (first && mode === "drop") {
      req.socket.destroy();
      return;
    }
    if (first && mode === "late") await new Promise((r) => setTimeout(r, 600));
    res.writeHead(answer.status, { "content-type": "application/json" }).end(text);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    posts: () => posts,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const lead = async (a: Tenant, id: string) => (await a.get(`/api/leads/${id}`)).body;

describe("@segment/analytics-node against Lift", () => {
  it("every call, through flush and closeAndFlush, each stored once", async () => {
    const a = await t.tenant();
    const analytics = sdk(a.apiKey, base);
    const errors = errorsOf(analytics);
    analytics.identify({ userId: "node-1", anonymousId: "anon-n", traits: { plan: "pro" } });
    analytics.page({
      anonymousId: "anon-n",
      name: "Docs",
      properties: { url: "https://shop.example.com/docs" },
    });
    analytics.track({
      userId: "node-1",
      event: "Order Completed",
      properties: { revenue: 30, currency: "usd" },
    });
    await analytics.flush();
    expect((await storedEvents(t, a)).map((e) => e.type).sort()).toEqual([
      "$identify",
      "Order Completed",
      "pageview",
    ]);
    analytics.screen({ userId: "node-1", name: "Home" });
    analytics.group({ userId: "node-1", groupId: "acme", traits: { name: "Acme" } });
    analytics.alias({ userId: "node-1", previousId: "anon-m" });
    for (let i = 0; i < 12; i++) analytics.track({ userId: "node-1", event: "Tick", properties: { i } });
    await analytics.closeAndFlush();
    expect(errors).toEqual([]);
    const events = await storedEvents(t, a);
    expect(events).toHaveLength(18);
    expect(new Set(events.filter((e) => e.type === "Tick").map((e) => e.data.i)).size).toBe(12);
    const l = await lead(a, "node-1");
    expect(l.properties).toEqual({ plan: "pro", groups: { acme: { name: "Acme" } } });
    expect(l.visitors.map((v: { visitorId: string }) => v.visitorId).sort()).toEqual([
      "anon-m",
      "anon-n",
      "lead:node-1",
    ]);
    expect(l.revenue).toBe(0); // no conversion goal matches "Order Completed" in this project
    const ids = (await storedMessageIds(t.app.db, a.projectId)).map((r) => r.messageId);
    expect(new Set(ids).size).toBe(18);
    expect(ids).toHaveLength(18);
  });

  it("the SDK's retry after a dropped connection, or after its own timeout, is stored once", async () => {
    for (const mode of ["drop", "late"] as const) {
      const a = await t.tenant();
      const proxy = await spoilingProxy(mode);
      const analytics = sdk(a.apiKey, proxy.url, { httpRequestTimeout: 300, maxRetries: 3 });
      const errors = errorsOf(analytics);
      for (let i = 0; i < 5; i++)
        analytics.track({ userId: "r", event: `Retried ${mode}`, properties: { i } });
      await analytics.closeAndFlush({ timeout: 20_000 });
      await proxy.close();
      expect(errors, mode).toEqual([]);
      expect(proxy.posts(), mode).toBeGreaterThanOrEqual(2);
      const events = await storedEvents(t, a);
      expect(events.map((e) => e.data.i).sort(), mode).toEqual([0, 1, 2, 3, 4]);
    }
  });

  it("an unknown write key fails the delivery (401 is not retried); nothing is stored", async () => {
    const a = await t.tenant();
    const analytics = sdk("svc_key_not_a_key", base);
    const failed = new Promise<unknown>((resolve) =>
      analytics.track({ userId: "x", event: "Lost" }, (err) => resolve(err)),
    );
    await analytics.closeAndFlush();
    expect(String(await failed)).toMatch(/401/);
    expect(await storedEvents(t, a)).toEqual([]);
  });
});
