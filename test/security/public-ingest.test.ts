import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../src/app.js";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { type Config, loadConfig } from "../../src/config.js";
import { BROWSER_UA, type Tenant, type TestApp, startTestApp } from "../helpers/app.js";
import { waitFor } from "../helpers/net.js";
import { type RedisServer, startRedisServer } from "../helpers/redis-server.js";

/**
 * Issue 40, items 2, 6 and 7: what the public key (in every page, so anyone's) can do to ingest.
 * Before: a Segment batch had no message cap and the limits counted requests, so six public-key
 * requests made 38,400 leads; a public key could pre-claim a messageId and silently drop the
 * server's later message with the same id; and the public-key limits were per key only, so one
 * address spending them blocked every visitor of the site for a minute.
 */

const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString("base64")}`;
type App = TestApp["app"];

/** POSTs JSON from `address` as a browser would; Segment paths carry the write key by HTTP Basic. */
async function post(app: App, url: string, body: unknown, opts: { key?: string; address?: string } = {}) {
  const res = await app.inject({
    method: "POST",
    url,
    remoteAddress: opts.address ?? "203.0.113.1",
    headers: {
      "content-type": "application/json",
      "user-agent": BROWSER_UA,
      ...(opts.key ? { authorization: basic(opts.key) } : {}),
    },
    payload: JSON.stringify(body),
  });
  return { status: res.statusCode, body: res.json(), headers: res.headers };
}

const track = (i: number, extra: Record<string, unknown> = {}) => ({
  type: "track",
  event: "Viewed",
  anonymousId: `anon-${i}`,
  ...extra,
});
const identify = (userId: string) => ({ type: "identify", userId, anonymousId: `anon-${userId}` });
const batchOf = (n: number, make: (i: number) => unknown = track) => ({
  batch: Array.from({ length: n }, (_, i) => make(i)),
});
const eventsOf = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ type: "tick", url: `https://shop.example.com/${i}` }));

async function eventCount(t: TestApp, a: Tenant, type?: string): Promise<number> {
  let q = t.app.db.selectFrom("events").select((eb) => eb.fn.countAll().as("n"));
  q = q.where("project_id", "=", a.projectId);
  if (type) q = q.where("type", "=", type);
  return Number((await q.executeTakeFirstOrThrow()).n);
}
async function leadCount(t: TestApp, a: Tenant): Promise<number> {
  const row = await t.app.db
    .selectFrom("identity_leads")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("project_id", "=", a.projectId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Limits for a test app: request limits off unless given, the unit budgets as given. */
const limits = (l: Partial<Config["rateLimits"]>): Partial<Config> => ({
  rateLimits: { events: 0, reads: 0, writes: 0, ...l },
});

describe("item 2: batches are capped in messages", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(limits({}));
  });
  afterAll(async () => t?.close());

  it("a public key's batch holds at most 100 messages, a secret key's 1000: 413 naming the cap, nothing stored", async () => {
    const a = await t.tenant();
    const pk = await post(t.app, "/v1/batch", batchOf(101), { key: a.publicKey });
    expect(pk.status).toBe(413);
    expect(pk.body).toMatchObject({ code: "PAYLOAD_TOO_LARGE", status: 413 });
    expect(pk.body.error).toMatch(/100 messages/);
    const sk = await post(t.app, "/v1/batch", batchOf(1001), { key: a.apiKey });
    expect(sk.status).toBe(413);
    expect(sk.body).toMatchObject({ code: "PAYLOAD_TOO_LARGE", status: 413 });
    expect(sk.body.error).toMatch(/1000 messages/);
    const events = await post(t.app, "/api/events", {
      projectKey: a.publicKey,
      visitorId: "v",
      events: eventsOf(101),
    });
    expect(events.status).toBe(413);
    expect(events.body).toMatchObject({ code: "PAYLOAD_TOO_LARGE", status: 413 });
    expect(events.body.error).toMatch(/100 events/);
    expect(await eventCount(t, a)).toBe(0);
    // At the caps: accepted.
    expect((await post(t.app, "/v1/batch", batchOf(100), { key: a.publicKey })).status).toBe(200);
    expect((await post(t.app, "/v1/batch", batchOf(1000), { key: a.apiKey })).status).toBe(200);
    const at = await post(t.app, "/api/events", {
      projectKey: a.publicKey,
      visitorId: "v",
      events: eventsOf(100),
    });
    expect(at.status).toBe(200);
    expect(await eventCount(t, a)).toBe(1200);
  });
});

describe("item 2: new leads from a public key are bounded per address", () => {
  let t: TestApp;
  beforeAll(async () => {
    // The shipped defaults.
    t = await startTestApp();
  });
  afterAll(async () => t?.close());

  it("a burst from one address creates at most the bound; /healthz stays responsive", async () => {
    const a = await t.tenant();
    // The default bound: 20 new leads a minute per key and address.
    const bound = 20;
    // A running server's database connections are open: opening them is not what is measured.
    await Promise.all(Array.from({ length: 10 }, () => t.app.inject({ url: "/healthz" })));
    let worst = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const began = performance.now();
        const res = await t.app.inject({ url: "/healthz" });
        expect(res.statusCode).toBe(200);
        worst = Math.max(worst, performance.now() - began);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    // 20 requests of 100 new users each, and 20 of 5 each, all at once from one address.
    const big = Array.from({ length: 20 }, (_, r) =>
      post(
        t.app,
        "/v1/batch",
        batchOf(100, (i) => identify(`big-${r}-${i}`)),
        { key: a.publicKey },
      ),
    );
    const small = Array.from({ length: 20 }, (_, r) =>
      post(
        t.app,
        "/v1/batch",
        batchOf(5, (i) => identify(`small-${r}-${i}`)),
        { key: a.publicKey },
      ),
    );
    const answers = await Promise.all([...big, ...small]);
    sampling = false;
    await sampler;
    expect(await leadCount(t, a)).toBe(bound);
    expect(t.config.rateLimits.addressLeads).toBe(bound);
    expect(answers.filter((r) => r.status === 200)).toHaveLength(bound / 5);
    const refused = answers.filter((r) => r.status === 429);
    expect(refused).toHaveLength(40 - bound / 5);
    expect(refused[0]!.body).toMatchObject({ code: "RATE_LIMITED", status: 429 });
    expect(refused[0]!.body.error).toMatch(/new leads/);
    expect(Number(refused[0]!.headers["retry-after"])).toBeGreaterThan(0);
    // Nothing of a refused request is stored.
    expect(await eventCount(t, a)).toBe(bound);
    expect(worst).toBeLessThan(300);

    // Every way a page makes a lead draws on the same bound.
    const stitch = await post(t.app, "/api/identity/stitch", {
      projectKey: a.publicKey,
      visitorId: "v-new",
      email: "new@example.com",
    });
    expect(stitch.status).toBe(429);
    const batch = await post(t.app, "/api/events", {
      projectKey: a.publicKey,
      userId: "fresh-user",
      events: eventsOf(1),
    });
    expect(batch.status).toBe(429);
    expect((await post(t.app, "/v1/identify", identify("fresh-user"), { key: a.publicKey })).status).toBe(
      429,
    );
    expect(
      (await post(t.app, "/v1/alias", { userId: "fresh", previousId: "p" }, { key: a.publicKey })).status,
    ).toBe(429);
    expect(await leadCount(t, a)).toBe(bound);

    // Existing leads are unaffected; another address has its own bound; a server's key has none.
    const existing = await t.app.db
      .selectFrom("identity_leads")
      .select("id")
      .where("project_id", "=", a.projectId)
      .limit(5)
      .execute();
    const known = await post(
      t.app,
      "/v1/batch",
      { batch: existing.map((l) => identify(l.id)) },
      { key: a.publicKey },
    );
    expect(known.status).toBe(200);
    expect(
      (await post(t.app, "/v1/identify", identify("elsewhere"), { key: a.publicKey, address: "203.0.113.2" }))
        .status,
    ).toBe(200);
    expect(
      (
        await post(
          t.app,
          "/v1/batch",
          batchOf(100, (i) => identify(`server-${i}`)),
          { key: a.apiKey },
        )
      ).status,
    ).toBe(200);
    expect(await leadCount(t, a)).toBe(bound + 101);
  });
});

describe("item 6: a public key's messageId never suppresses a secret key's", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(limits({}));
  });
  afterAll(async () => t?.close());

  it("the server's message is stored after a page claimed its id; retries stay deduplicated", async () => {
    const a = await t.tenant();
    const order = { event: "Order Completed", messageId: "order-1001" };
    const page = await post(t.app, "/v1/track", { anonymousId: "attacker", ...order }, { key: a.publicKey });
    expect(page.status).toBe(200);
    const server = { userId: "u-1", ...order, properties: { revenue: 99 } };
    expect((await post(t.app, "/v1/track", server, { key: a.apiKey })).status).toBe(200);
    expect(await eventCount(t, a, "Order Completed")).toBe(2);
    const revenue = await t.app.db
      .selectFrom("events")
      .select("data")
      .where("project_id", "=", a.projectId)
      .where("lead_id", "=", "u-1")
      .execute();
    expect(revenue.map((r) => JSON.parse(r.data).revenue)).toEqual([99]);
    // An SDK's retry of either is still a duplicate.
    expect((await post(t.app, "/v1/track", server, { key: a.apiKey })).status).toBe(200);
    expect(
      (await post(t.app, "/v1/batch", { batch: [{ type: "track", ...server }] }, { key: a.apiKey })).status,
    ).toBe(200);
    expect(
      (await post(t.app, "/v1/track", { anonymousId: "attacker", ...order }, { key: a.publicKey })).status,
    ).toBe(200);
    expect(await eventCount(t, a, "Order Completed")).toBe(2);
  });
});

describe("item 7: one address cannot block a site's tracking for everyone", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(limits({ events: 5, writes: 5 }));
  });
  afterAll(async () => t?.close());

  it("public-key requests are limited per key and address; a secret key stays per key", async () => {
    const a = await t.tenant();
    const calls: [
      string,
      (address: string) => Promise<{ status: number; headers: Record<string, unknown> }>,
    ][] = [
      ["/v1/track", (address) => post(t.app, "/v1/track", track(0), { key: a.publicKey, address })],
      [
        "/api/events",
        (address) =>
          post(
            t.app,
            "/api/events",
            { projectKey: a.publicKey, visitorId: "v", type: "pageview", url: "https://s.example.com/" },
            { address },
          ),
      ],
      [
        "/api/identity/stitch",
        (address) =>
          post(
            t.app,
            "/api/identity/stitch",
            { projectKey: a.publicKey, visitorId: `v-${address}`, email: "x@example.com" },
            { address },
          ),
      ],
    ];
    for (const [path, send] of calls) {
      for (let i = 0; i < 5; i++) expect((await send("198.51.100.7")).status, path).toBe(200);
      const over = await send("198.51.100.7");
      expect(over.status, path).toBe(429);
      expect(Number(over.headers["retry-after"]), path).toBeGreaterThan(0);
      expect((await send("198.51.100.8")).status, path).toBe(200);
    }
    // An IPv6 host may use every address of its /64: the block counts as one address.
    const v6 = (address: string) => post(t.app, "/v1/track", track(0), { key: a.publicKey, address });
    for (let i = 1; i <= 5; i++) expect((await v6(`2001:db8:1:2::${i}`)).status).toBe(200);
    expect((await v6("2001:db8:1:2:ffff:ffff:ffff:ffff")).status).toBe(429);
    expect((await v6("2001:db8:1:3::1")).status).toBe(200);
    // The spec's limit for a server: 5 requests per key, whatever the address.
    for (let i = 0; i < 5; i++)
      expect(
        (await post(t.app, "/v1/track", track(0), { key: a.apiKey, address: `192.0.2.${i}` })).status,
      ).toBe(200);
    expect((await post(t.app, "/v1/track", track(0), { key: a.apiKey, address: "192.0.2.99" })).status).toBe(
      429,
    );
  });
});

describe("ingest limits count events, not only requests", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(limits({ events: 1000, keyEvents: 250, addressEvents: 120 }));
  });
  afterAll(async () => t?.close());

  it("a secret key's batches: a batch is one request, but its messages count against the key's events", async () => {
    const a = await t.tenant();
    expect((await post(t.app, "/v1/batch", batchOf(100), { key: a.apiKey })).status).toBe(200);
    expect(
      (await post(t.app, "/api/events", { projectKey: a.apiKey, visitorId: "v", events: eventsOf(100) }))
        .status,
    ).toBe(200);
    const over = await post(t.app, "/v1/batch", batchOf(100), { key: a.apiKey });
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ code: "RATE_LIMITED", status: 429 });
    expect(over.body.error).toMatch(/250 events per minute/);
    expect(Number(over.headers["retry-after"])).toBeGreaterThan(0);
    // Two of the key's 1000 requests on /v1 were used; what still fits the events budget passes.
    expect(over.headers["x-ratelimit-remaining"]).toBe("998");
    expect((await post(t.app, "/v1/batch", batchOf(50), { key: a.apiKey })).status).toBe(200);
    expect((await post(t.app, "/v1/track", track(0), { key: a.apiKey })).status).toBe(429);
    expect(await eventCount(t, a)).toBe(250);
  });

  it("a public key: per address, under a per-key ceiling", async () => {
    const a = await t.tenant();
    const from = (address: string, n: number) =>
      post(t.app, "/v1/batch", batchOf(n), { key: a.publicKey, address });
    expect((await from("198.51.100.1", 100)).status).toBe(200);
    const over = await from("198.51.100.1", 50);
    expect(over.status).toBe(429);
    expect(over.body.error).toMatch(/120 events per minute/);
    expect((await from("198.51.100.1", 20)).status).toBe(200);
    expect((await from("198.51.100.2", 100)).status).toBe(200);
    // 220 of the key's 250: a third address's 100 would pass its own budget, not the key's.
    const ceiling = await from("198.51.100.3", 100);
    expect(ceiling.status).toBe(429);
    expect(ceiling.body.error).toMatch(/250 events per minute/);
    expect(await eventCount(t, a)).toBe(220);
  });

  it("the defaults: a key's ceiling far above what one address may send", () => {
    const l = loadConfig(
      {},
      { dataDir: tmpdir(), secretKey: randomBytes(32).toString("base64url") },
    ).rateLimits;
    expect([l.keyEvents, l.addressEvents, l.addressLeads]).toEqual([300_000, 5000, 20]);
    expect(l.keyEvents!).toBeGreaterThanOrEqual(10 * l.addressEvents!);
    const off = loadConfig(
      { RATE_LIMIT_KEY_EVENTS: "0", RATE_LIMIT_ADDRESS_EVENTS: "0", RATE_LIMIT_ADDRESS_LEADS: "0" },
      { dataDir: tmpdir(), secretKey: randomBytes(32).toString("base64url") },
    ).rateLimits;
    expect([off.keyEvents, off.addressEvents, off.addressLeads]).toEqual([0, 0, 0]);
  });
});

describe("the event budgets are shared by every API process through Redis", () => {
  let redis: RedisServer;
  let t: TestApp;
  beforeAll(async () => {
    redis = await startRedisServer();
    t = await startTestApp({ ...limits({ addressEvents: 120, addressLeads: 3 }), redisUrl: redis.url });
  }, 30_000);
  afterAll(async () => {
    await t?.close();
    await redis?.stop();
  });

  it("two nodes count one address's events and new leads together", async () => {
    const a = await t.tenant();
    const node2 = await buildApp(t.config, { handle: t.app.dbHandle, logger: false });
    await node2.ready();
    // Until its connection is up a node lets requests through (a Redis outage must not stop ingest).
    await waitFor(() => t.app.deps.redis?.status === "ready" && node2.deps.redis?.status === "ready");
    try {
      expect((await post(t.app, "/v1/batch", batchOf(100), { key: a.publicKey })).status).toBe(200);
      expect((await post(node2, "/v1/batch", batchOf(50), { key: a.publicKey })).status).toBe(429);
      expect((await post(node2, "/v1/batch", batchOf(20), { key: a.publicKey })).status).toBe(200);
      expect((await post(t.app, "/v1/track", track(0), { key: a.publicKey })).status).toBe(429);
      const lead = (id: string) => ({ userId: id, anonymousId: `anon-${id}` });
      for (const id of ["l1", "l2"])
        expect(
          (await post(t.app, "/v1/identify", lead(id), { key: a.publicKey, address: "203.0.113.9" })).status,
        ).toBe(200);
      expect(
        (await post(node2, "/v1/identify", lead("l3"), { key: a.publicKey, address: "203.0.113.9" })).status,
      ).toBe(200);
      expect(
        (await post(node2, "/v1/identify", lead("l4"), { key: a.publicKey, address: "203.0.113.9" })).status,
      ).toBe(429);
      expect(await leadCount(t, a)).toBe(3);
    } finally {
      await node2.close();
    }
  });
});
