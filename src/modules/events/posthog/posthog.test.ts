import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Tenant, startTestApp, type TestApp } from "../../../../test/helpers/app.js";
import { BROWSER_UA, storedEvents } from "../segment/segment.testing.js";

/**
 * PostHog's capture API: the bodies its SDKs send (every encoding), the events they map to, and the
 * remote config posthog-js loads first.
 */
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const send = (path: string, payload: string | Buffer, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: "POST",
    url: path,
    payload,
    headers: { "content-type": "application/json", "user-agent": BROWSER_UA, ...headers },
  });

const pageview = (a: Tenant, extra: Record<string, unknown> = {}) => ({
  event: "$pageview",
  properties: {
    token: a.publicKey,
    distinct_id: "anon-p",
    $current_url: "https://shop.example.com/pricing?utm_source=newsletter&utm_medium=email",
    $referrer: "$direct",
    ...extra,
  },
  timestamp: new Date().toISOString(),
  uuid: crypto.randomUUID(),
});

describe("PostHog capture: encodings", () => {
  it("plain JSON, an array, on every path with or without its slash: {status: 1}", async () => {
    const a = await t.tenant();
    const paths = [
      "/e",
      "/e/",
      "/i/v0/e",
      "/i/v0/e/",
      "/capture",
      "/capture/",
      "/batch",
      "/batch/",
      "/track",
      "/track/",
      "/engage",
      "/engage/",
    ];
    for (const path of paths) {
      const res = await send(path, JSON.stringify([pageview(a)]));
      expect(res.statusCode, path).toBe(200);
      expect(res.json(), path).toEqual({ status: 1 });
    }
    expect(await storedEvents(t, a)).toHaveLength(paths.length);
  });

  it("gzip: by Content-Encoding, by ?compression=gzip-js, and by its magic bytes under text/plain", async () => {
    const a = await t.tenant();
    const body = (n: number) =>
      gzipSync(JSON.stringify({ api_key: a.apiKey, batch: [{ event: `E${n}`, distinct_id: "d" }] }));
    expect((await send("/batch/", body(1), { "content-encoding": "gzip" })).statusCode).toBe(200);
    expect(
      (await send("/e/?compression=gzip-js&ver=1.449.2", body(2), { "content-type": "text/plain" }))
        .statusCode,
    ).toBe(200);
    expect((await send("/e/", body(3), { "content-type": "text/plain" })).statusCode).toBe(200);
    expect((await storedEvents(t, a)).map((e) => e.type).sort()).toEqual(["E1", "E2", "E3"]);
  });

  it("?compression=base64 with a form body data=<base64 JSON> (unload beacons)", async () => {
    const a = await t.tenant();
    const json = JSON.stringify([pageview(a, { $current_url: "https://shop.example.com/ünïcode" })]);
    const form = `data=${encodeURIComponent(Buffer.from(json).toString("base64"))}`;
    const res = await send("/e/?compression=base64", form, {
      "content-type": "application/x-www-form-urlencoded",
    });
    expect(res.statusCode).toBe(200);
    const [e] = await storedEvents(t, a);
    expect(e!.url).toBe("https://shop.example.com/ünïcode");
  });

  it("a gzip bomb is 413, nothing stored; bad gzip, bad base64 and bad JSON are 400, never 500", async () => {
    const a = await t.tenant();
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, 32));
    for (const [query, headers] of [
      ["", { "content-encoding": "gzip" }],
      ["?compression=gzip-js", { "content-type": "text/plain" }],
      ["", { "content-type": "text/plain" }],
    ] as const) {
      const res = await send(`/batch/${query}`, bomb, headers);
      expect(res.statusCode, query).toBe(413);
      expect(res.json().code).toBe("PAYLOAD_TOO_LARGE");
    }
    const bad: [string, string | Buffer, Record<string, string>, RegExp][] = [
      [
        "/e/?compression=gzip-js",
        Buffer.from([0x1f, 0x8b, 1, 2, 3]),
        { "content-type": "text/plain" },
        /gzip/,
      ],
      [
        "/e/?compression=base64",
        "data=%%%",
        { "content-type": "application/x-www-form-urlencoded" },
        /base64|form/,
      ],
      ["/e/?compression=base64", "nodata=1", { "content-type": "application/x-www-form-urlencoded" }, /data/],
      ["/e/", "{not json", {}, /JSON/],
      ["/batch/", JSON.stringify({ api_key: a.apiKey, batch: 5 }), {}, /body.batch must be an array/],
      ["/batch/", JSON.stringify({ api_key: a.apiKey, batch: [] }), {}, /no events/],
    ];
    for (const [path, payload, headers, message] of bad) {
      const res = await send(path, payload, headers);
      expect(res.statusCode, `${path} ${String(payload)}`).toBe(400);
      expect(res.json()).toMatchObject({ code: "VALIDATION_ERROR", status: 400 });
      expect(res.json().error).toMatch(message);
    }
    // Without a body there is no key: 401 first, as on every keyed route.
    for (const payload of ["", "42"]) expect((await send("/e/", payload)).statusCode).toBe(401);
    expect(await storedEvents(t, a)).toEqual([]);
  });
});

describe("PostHog capture: keys, limits, mapping", () => {
  it("no key or an unknown key is 401; the secret key's batches may be larger than a page's", async () => {
    const a = await t.tenant();
    const none = await send("/e/", JSON.stringify({ event: "E", distinct_id: "d" }));
    expect(none.statusCode).toBe(401);
    const unknown = await send("/e/", JSON.stringify({ event: "E", distinct_id: "d", api_key: "phc_nope" }));
    expect(unknown.statusCode).toBe(401);
    const batch = (key: string, n: number) =>
      JSON.stringify({
        api_key: key,
        batch: Array.from({ length: n }, (_, i) => ({ event: "Bulk", distinct_id: `d${i}` })),
      });
    expect((await send("/batch/", batch(a.publicKey, 101))).statusCode).toBe(413);
    expect((await send("/batch/", batch(a.apiKey, 101))).statusCode).toBe(200);
    expect((await send("/batch/", batch(a.apiKey, 1001))).statusCode).toBe(413);
  });

  it("a pageview is a web visit with its channel; $pageleave, $autocapture and custom events are kept", async () => {
    const a = await t.tenant();
    const res = await send(
      "/e/",
      JSON.stringify([
        pageview(a),
        pageview(a, {
          distinct_id: "anon-q",
          $current_url: "https://shop.example.com/",
          $referrer: "https://www.google.com/",
        }),
        {
          event: "$pageleave",
          properties: {
            token: a.publicKey,
            distinct_id: "anon-p",
            $current_url: "https://shop.example.com/",
          },
        },
        {
          event: "$autocapture",
          properties: {
            token: a.publicKey,
            distinct_id: "anon-p",
            $event_type: "click",
            $elements_chain: 'button.buy:text="Buy"',
          },
        },
        { event: "Added To Cart", properties: { token: a.publicKey, distinct_id: "anon-p", sku: "A1" } },
      ]),
    );
    expect(res.statusCode).toBe(200);
    const events = await storedEvents(t, a);
    const views = events.filter((e) => e.type === "pageview");
    expect(views.map((v) => v.channel).sort()).toEqual(["email", "organic_search"].sort());
    expect(views.every((v) => !v.server && v.sessionId !== "")).toBe(true);
    expect(views.map((v) => v.visitorId).sort()).toEqual(["anon-p", "anon-q"]);
    expect(views.find((v) => v.channel === "email")!.data.token).toBeUndefined();
    expect(events.find((e) => e.type === "$autocapture")!.data.$elements_chain).toBe('button.buy:text="Buy"');
    expect(events.find((e) => e.type === "Added To Cart")!.data.sku).toBe("A1");
    expect(events.find((e) => e.type === "$pageleave")).toBeDefined();
  });

  it("a page's $identify links the visitor; its $set only fills what the lead does not have", async () => {
    const a = await t.tenant();
    const server = {
      api_key: a.apiKey,
      event: "$identify",
      distinct_id: "u-9",
      properties: { $set: { plan: "enterprise" } },
    };
    expect((await send("/capture/", JSON.stringify(server))).statusCode).toBe(200);
    const res = await send(
      "/e/",
      JSON.stringify({
        event: "$identify",
        properties: {
          token: a.publicKey,
          distinct_id: "u-9",
          $anon_distinct_id: "anon-9",
          $set: { plan: "free", name: "Ann" },
        },
      }),
    );
    expect(res.statusCode).toBe(200);
    const lead = (await a.get("/api/leads/u-9")).body;
    expect(lead.properties).toMatchObject({ plan: "enterprise", name: "Ann" });
    expect(lead.visitors.map((v: { visitorId: string }) => v.visitorId)).toContain("anon-9");
  });

  it("after identify, posthog-js's events (pageviews too) are the lead's, on the browser's $device_id", async () => {
    const a = await t.tenant();
    const identified = { token: a.publicKey, distinct_id: "u-7", $device_id: "dev-7", $is_identified: true };
    const res = await send(
      "/e/",
      JSON.stringify([
        pageview(a, identified),
        { event: "Clicked", properties: identified },
        { event: "Anonymous", properties: { token: a.publicKey, distinct_id: "dev-8", $device_id: "dev-8" } },
      ]),
    );
    expect(res.statusCode).toBe(200);
    const events = await storedEvents(t, a);
    expect(events.map((e) => [e.type, e.visitorId, e.leadId]).sort()).toEqual([
      ["Anonymous", "dev-8", null],
      ["Clicked", "dev-7", "u-7"],
      ["pageview", "dev-7", "u-7"],
    ]);
  });

  it("a client clock that is off: the time is moved by sent_at (body, or posthog-js's query)", async () => {
    const a = await t.tenant();
    const sent = Date.now() + 2 * 3_600_000; // two hours ahead
    const at = new Date(sent - 60_000).toISOString(); // a minute before sending, by that clock
    const body = {
      api_key: a.apiKey,
      sent_at: new Date(sent).toISOString(),
      batch: [{ event: "Batch", distinct_id: "d", timestamp: at }],
    };
    expect((await send("/batch/", JSON.stringify(body))).statusCode).toBe(200);
    const single = { api_key: a.apiKey, event: "Query", distinct_id: "d", timestamp: at };
    expect(
      (await send(`/e/?_=${sent}`, JSON.stringify(single), { "content-type": "text/plain" })).statusCode,
    ).toBe(200);
    for (const e of await storedEvents(t, a))
      expect(Math.abs(e.ts - (Date.now() - 60_000)), e.type).toBeLessThan(15_000);
  });

  it("an event without distinct_id or event names the field; nothing stored", async () => {
    const a = await t.tenant();
    const res = await send(
      "/batch/",
      JSON.stringify({
        api_key: a.apiKey,
        batch: [{ event: "E", distinct_id: "d" }, { event: "E" }, { distinct_id: "d" }],
      }),
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().errors.map((e: { message: string }) => e.message)).toEqual([
      "batch[1].distinct_id is required",
      "batch[2].event is required",
    ]);
    expect(await storedEvents(t, a)).toEqual([]);
  });
});

describe("posthog-js's remote config", () => {
  it("GET and POST /array/<public key>/config, and config.js: compression offered, flags served (/flags); a secret key is refused", async () => {
    const a = await t.tenant();
    for (const method of ["GET", "POST"] as const) {
      const res = await t.app.inject({ method, url: `/array/${a.publicKey}/config` });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        token: a.publicKey,
        supportedCompression: ["gzip-js", "base64"],
        hasFeatureFlags: true,
      });
    }
    const js = await t.app.inject({ method: "GET", url: `/array/${a.publicKey}/config.js` });
    expect(js.statusCode).toBe(200);
    expect(js.headers["content-type"]).toMatch(/javascript/);
    expect(js.body).toContain("_POSTHOG_REMOTE_CONFIG");
    expect((await t.app.inject({ method: "GET", url: `/array/${a.apiKey}/config` })).statusCode).toBe(403);
    expect((await t.app.inject({ method: "GET", url: "/array/phc_nope/config" })).statusCode).toBe(401);
  });
});
