import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import Analytics from "@rudderstack/rudder-sdk-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../../../test/helpers/app.js";
import { basic, storedEvents } from "./segment.testing.js";

/**
 * RudderStack's Node SDK (@rudderstack/rudder-sdk-node) with its defaults, pointed at Lift by its
 * `dataPlaneUrl`. It gzips each batch and posts it through axios without a Content-Type of its
 * own, so the request is labelled `application/x-www-form-urlencoded` (axios's default for bytes).
 */
let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await startTestApp();
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
});
afterAll(async () => t.close());

const FORM = "application/x-www-form-urlencoded";

/** POSTs raw bytes to `path` with exactly these headers, plus the write key by HTTP Basic. */
async function raw(
  key: string,
  path: string,
  payload: string | Buffer,
  opts: { headers: Record<string, string> },
) {
  const res = await t.app.inject({
    method: "POST",
    url: path,
    headers: { authorization: basic(key), "user-agent": "raw-test", ...opts.headers },
    payload,
  });
  return { status: res.statusCode, body: res.json() };
}

describe("@rudderstack/rudder-sdk-node against Lift", () => {
  it("identify, page, track and a batch flush, with the SDK's defaults, are stored", async () => {
    const a = await t.tenant();
    const errors: unknown[] = [];
    const rudder = new Analytics(a.apiKey, {
      dataPlaneUrl: base,
      logLevel: "none",
      errorHandler: (e: { response?: { status?: number } }) => errors.push(e.response?.status ?? String(e)),
    });
    // The first call is sent at once (the SDK flushes its first message alone), the rest batched.
    rudder.identify({ userId: "rs-1", anonymousId: "anon-rs", traits: { plan: "team" } });
    rudder.page({
      anonymousId: "anon-rs",
      name: "Pricing",
      properties: { url: "https://shop.example.com/pricing" },
    });
    rudder.track({ userId: "rs-1", event: "Plan Chosen", properties: { plan: "team" } });
    for (let i = 0; i < 25; i++) rudder.track({ userId: "rs-1", event: "Tick", properties: { i } });
    await rudder.flush();
    await rudder.flush();
    expect(errors).toEqual([]);
    const events = await storedEvents(t, a);
    expect(events).toHaveLength(28);
    expect(
      events
        .filter((e) => e.type !== "Tick")
        .map((e) => e.type)
        .sort(),
    ).toEqual(["$identify", "Plan Chosen", "pageview"]);
    expect(events.find((e) => e.type === "pageview")?.url).toBe("https://shop.example.com/pricing");
    expect(new Set(events.filter((e) => e.type === "Tick").map((e) => e.data.i)).size).toBe(25);
    const lead = (await a.get("/api/leads/rs-1")).body;
    expect(lead.properties).toEqual({ plan: "team" });
    expect(lead.visitors.map((v: { visitorId: string }) => v.visitorId)).toContain("anon-rs");
  });

  it("an unknown write key fails the flush with 401; nothing is stored", async () => {
    const a = await t.tenant();
    const failed: { response?: { status?: number } }[] = [];
    const rudder = new Analytics("svc_key_not_a_key", {
      dataPlaneUrl: base,
      logLevel: "none",
      errorHandler: (e) => failed.push(e),
    });
    rudder.track({ userId: "x", event: "Lost" });
    await rudder.flush();
    // 401 is not retried by the SDK: one failure, answered at once.
    expect(failed.map((e) => e.response?.status)).toEqual([401]);
    expect(await storedEvents(t, a)).toEqual([]);
  });
});

describe("/v1/* reads its body as JSON whatever the Content-Type", () => {
  it("accepts JSON labelled as a form, as octets or unlabelled, gzipped or not", async () => {
    const a = await t.tenant();
    const body = (event: string) => JSON.stringify({ batch: [{ type: "track", userId: "u", event }] });
    const sent = [
      [FORM, gzipSync(body("FormGzip")), "gzip"],
      [FORM, body("Form"), undefined],
      ["application/octet-stream", body("Octets"), undefined],
      [undefined, body("Unlabelled"), undefined],
    ] as const;
    for (const [type, payload, encoding] of sent) {
      const headers: Record<string, string> = {};
      if (type) headers["content-type"] = type;
      if (encoding) headers["content-encoding"] = encoding;
      const res = await raw(a.apiKey, "/v1/batch", payload, { headers });
      expect(res.status, `${type} ${JSON.stringify(res.body)}`).toBe(200);
    }
    expect((await storedEvents(t, a)).map((e) => e.type)).toEqual([
      "FormGzip",
      "Form",
      "Octets",
      "Unlabelled",
    ]);
  });

  it("a body that is not JSON is a 400 in the error format; past the cap a 413; nothing stored", async () => {
    const a = await t.tenant();
    const form = await raw(a.apiKey, "/v1/track", "userId=u&event=E", { headers: { "content-type": FORM } });
    expect(form.status).toBe(400);
    expect(form.body).toMatchObject({
      code: "VALIDATION_ERROR",
      status: 400,
      error: "body is not valid JSON",
    });
    expect(form.body.requestId).toMatch(/^req_/);
    const multipart = await raw(
      a.apiKey,
      "/v1/batch",
      "--x\r\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n--x--",
      {
        headers: { "content-type": "multipart/form-data; boundary=x" },
      },
    );
    expect(multipart.status).toBe(400);
    expect(multipart.body.code).toBe("VALIDATION_ERROR");
    const corrupt = await raw(a.apiKey, "/v1/batch", Buffer.from("not gzip"), {
      headers: { "content-type": FORM, "content-encoding": "gzip" },
    });
    expect(corrupt.status).toBe(400);
    expect(corrupt.body.code).toBe("VALIDATION_ERROR");
    // A gzip bomb labelled as a form stops at the decompression cap (500 KB for a batch).
    const bomb = gzipSync(
      `{"batch":[{"type":"track","userId":"u","event":"${"x".repeat(4 * 1024 * 1024)}"}]}`,
    );
    const big = await raw(a.apiKey, "/v1/batch", bomb, {
      headers: { "content-type": FORM, "content-encoding": "gzip" },
    });
    expect(big.status, JSON.stringify(big.body)).toBe(413);
    expect(big.body.code).toBe("PAYLOAD_TOO_LARGE");
    const badEncoding = await raw(a.apiKey, "/v1/batch", "{}", {
      headers: { "content-type": FORM, "content-encoding": "br" },
    });
    expect(badEncoding.status).toBe(415);
    expect(badEncoding.body.code).toBe("UNSUPPORTED_MEDIA_TYPE");
    expect(await storedEvents(t, a)).toEqual([]);
  });

  it("other routes still refuse a body that is not application/json", async () => {
    const a = await t.tenant();
    const res = await a.post("/api/events", "{}", { headers: { "content-type": FORM } });
    expect(res.status).toBe(415);
    expect(res.body.code).toBe("UNSUPPORTED_MEDIA_TYPE");
  });
});
