import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../../../../test/helpers/app.js";
import { call, storedEvents } from "./segment.testing.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

const track = (extra: Record<string, unknown> = {}) => ({ type: "track", userId: "u", event: "E", ...extra });

describe("Segment API: invalid input is a 4xx in the spec's format, and nothing of the request is stored", () => {
  it("a message without userId or anonymousId is refused, naming its index; the valid ones are not stored", async () => {
    const a = await t.tenant();
    const res = await call(a, "/v1/batch", {
      batch: [track(), { type: "track", event: "Anonymous", anonymousId: null, userId: "" }, track()],
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: "batch[1] needs a userId or an anonymousId",
      code: "VALIDATION_ERROR",
      status: 400,
      errors: [{ index: 1, code: "VALIDATION_ERROR", message: "batch[1] needs a userId or an anonymousId" }],
    });
    expect(await storedEvents(t, a)).toEqual([]);
    const single = await call(a, "/v1/identify", { traits: { plan: "pro" } });
    expect(single.status).toBe(400);
    expect(single.body.error).toBe("body needs a userId or an anonymousId");
  });

  it("lists every invalid message, each by index and field", async () => {
    const a = await t.tenant();
    const res = await call(a, "/v1/batch", {
      batch: [
        track(),
        { type: "identify" },
        { type: "launch", userId: "u" },
        { type: "track", userId: "u" },
        track({ timestamp: "yesterday" }),
        track({ timestamp: "1999-12-31T23:59:59Z" }),
        { type: "group", userId: "u" },
        { type: "alias", userId: "u" },
        track({ properties: [1, 2] }),
        track({ context: { page: { url: 5 } } }),
        track({ userId: "x".repeat(201) }),
        "not an object",
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("VALIDATION_ERROR");
    expect(res.body.error).toBe(
      "11 invalid messages, none stored; batch[1] needs a userId or an anonymousId",
    );
    expect(res.body.errors.map((e: { index: number; message: string }) => [e.index, e.message])).toEqual([
      [1, "batch[1] needs a userId or an anonymousId"],
      [2, "batch[2].type must be one of track, identify, page, screen, group, alias"],
      [3, "batch[3].event is required"],
      [4, "batch[4].timestamp must be an ISO 8601 date-time"],
      [5, "batch[5].timestamp is out of range (2000 to now + 1 day)"],
      [6, "batch[6].groupId is required"],
      [7, "batch[7].previousId is required"],
      [8, "batch[8].properties must be an object"],
      [9, "batch[9].context.page.url must be a string"],
      [10, "batch[10].userId must be a string of at most 200 characters without control characters"],
      [11, "batch[11] must be an object"],
    ]);
    expect(await storedEvents(t, a)).toEqual([]);
  });

  it("a skew-corrected time out of range names originalTimestamp; a bad batch sentAt names the body's", async () => {
    const a = await t.tenant();
    const skewed = await call(a, "/v1/track", {
      userId: "u",
      event: "E",
      originalTimestamp: "2026-01-01T00:00:00Z",
      sentAt: "1990-01-01T00:00:00Z",
    });
    expect(skewed.status).toBe(400);
    expect(skewed.body.error).toBe("body.originalTimestamp is out of range (2000 to now + 1 day)");
    const sentAt = await call(a, "/v1/batch", { sentAt: "soon", batch: [track()] });
    expect(sentAt.status).toBe(400);
    expect(sentAt.body).toMatchObject({
      code: "VALIDATION_ERROR",
      error: "body.sentAt must be an ISO 8601 date-time",
    });
  });

  it("Segment's limits: 32 KB per message (413 naming it), 500 KB per batch, 32 KB per single call", async () => {
    const a = await t.tenant();
    const big = "x".repeat(33 * 1024);
    const one = await call(a, "/v1/batch", { batch: [track(), track({ properties: { big } }), track()] });
    expect(one.status).toBe(413);
    expect(one.body).toMatchObject({
      code: "PAYLOAD_TOO_LARGE",
      status: 413,
      error: "batch[1] is larger than 32 KB",
      errors: [{ index: 1, code: "PAYLOAD_TOO_LARGE" }],
    });
    // The measure is the message's own bytes: 31 KB messages fit, also many of them together.
    const fits = "y".repeat(31 * 1024);
    const many = await call(a, "/v1/batch", {
      batch: Array.from({ length: 15 }, (_, i) => track({ messageId: `fits-${i}`, properties: { fits } })),
    });
    expect(many.status).toBe(200);
    // A multi-byte message over 32 KB of UTF-8 (under 32K characters).
    const wide = await call(a, "/v1/batch", { batch: [track({ properties: { s: "é".repeat(17 * 1024) } })] });
    expect(wide.status).toBe(413);
    const batch = await call(a, "/v1/batch", {
      batch: Array.from({ length: 17 }, () => track({ properties: { fits } })),
    });
    expect(batch.status).toBe(413);
    expect(batch.body.code).toBe("PAYLOAD_TOO_LARGE");
    const single = await call(a, "/v1/track", track({ properties: { big } }));
    expect(single.status).toBe(413);
    expect(single.body.code).toBe("PAYLOAD_TOO_LARGE");
    expect(await storedEvents(t, a)).toHaveLength(15);
  });

  it("refuses an empty or missing batch, a non-object body, invalid JSON and other content types", async () => {
    const a = await t.tenant();
    const empty = await call(a, "/v1/batch", { batch: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toBe("body.batch must not be empty");
    const missing = await call(a, "/v1/batch", { messages: [track()] });
    expect(missing.body.error).toBe("body.batch is required");
    const array = await call(a, "/v1/track", [track()]);
    expect(array.status).toBe(400);
    expect(array.body.error).toBe("body must be a JSON object");
    const broken = await call(a, "/v1/track", "{not json", {
      headers: { "content-type": "application/json" },
    });
    expect(broken.status).toBe(400);
    expect(broken.body).toMatchObject({ code: "VALIDATION_ERROR", error: "body is not valid JSON" });
    // Read as JSON whatever the label (rudderstack.sdk-node.test.ts): a form's text is not JSON.
    const form = await call(a, "/v1/track", "userId=u", {
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(400);
    expect(form.body).toMatchObject({ code: "VALIDATION_ERROR", error: "body is not valid JSON" });
    const corrupt = await call(a, "/v1/batch", Buffer.from("not gzip"), {
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
    });
    expect(corrupt.status).toBe(400);
    expect(await storedEvents(t, a)).toEqual([]);
  });

  it("never answers 500 to odd but valid JSON", async () => {
    const a = await t.tenant();
    const odd: unknown[] = [
      { batch: [null] },
      { batch: [[]] },
      { batch: [{ type: "page", anonymousId: 0, context: null, properties: null }] },
      { batch: [{ type: "track", userId: 1e21, event: "n", context: { page: null, campaign: null } }] },
      {
        batch: [
          { type: "page", userId: "u", context: { campaign: { source: "s" }, page: { url: "not a url" } } },
        ],
      },
      { batch: [track({ properties: { revenue: "NaN", total: {}, currency: 7 } })] },
      { batch: [{ type: "group", userId: "u", groupId: 0, traits: null }] },
      { batch: [track()], context: "ctx", sentAt: 5 },
    ];
    for (const body of odd) {
      const res = await call(a, "/v1/batch", body);
      expect(res.status, JSON.stringify(body)).toBeLessThan(500);
      expect([200, 400], JSON.stringify(body)).toContain(res.status);
    }
  });
});
