import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_MESSAGE_BYTES } from "./schema.js";
import { batchElementSpans, minTextLength, oversizedMessages } from "./sizes.js";

/** A JSON text with some whitespace, as a hand-written client may send. */
const spaced = (v: unknown) => JSON.stringify(v, null, 1);

describe("messages measured on the request's text", () => {
  it("finds each element of the top-level batch array, whatever its strings and nesting hold", () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { minLength: 1, maxLength: 8 }), fc.boolean(), (batch, pretty) => {
        const text = (pretty ? spaced : JSON.stringify)({
          before: ["batch", { batch: [1] }],
          batch,
          after: "]",
        });
        const spans = batchElementSpans(text)!;
        const elements = [];
        for (let i = 0; i < spans.length; i += 2)
          elements.push(JSON.parse(text.slice(spans[i], spans[i + 1])));
        expect(elements).toEqual(JSON.parse(text).batch);
      }),
    );
  });

  it("takes the last batch key, as JSON.parse does", () => {
    const text = '{"batch":[{"a":1}],"x":"\\"batch\\":[","batch" : [ {"b":2} , {"c":"]}"} ]}';
    const spans = batchElementSpans(text)!;
    expect([text.slice(spans[0], spans[1]), text.slice(spans[2], spans[3])]).toEqual([
      '{"b":2}',
      '{"c":"]}"}',
    ]);
  });

  it("a message's lower bound never exceeds its text", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (message) => {
        expect(minTextLength(message)).toBeLessThanOrEqual(JSON.stringify(message).length);
      }),
    );
  });

  it("names the messages over 32 KB, in bytes, with or without a scan", () => {
    const small = { type: "track", event: "x", userId: "u" };
    const big = { ...small, properties: { s: "a".repeat(MAX_MESSAGE_BYTES) } };
    const wide = { ...small, properties: { s: "é".repeat(MAX_MESSAGE_BYTES / 2) } };
    // Ids and names carry most of an SDK's message: the others' bound leaves no room for 32 KB.
    const many = Array.from({ length: 300 }, (_, i) => ({
      ...small,
      messageId: `node-next-${i}-${"0".repeat(60)}`,
      properties: { s: "b".repeat(20) },
    }));
    // Large properties are not counted in the bound: the text is scanned, and each fits.
    const two = [0, 1].map(() => ({ ...small, properties: { s: "c".repeat(20_000) } }));
    const check = (batch: unknown[]) => oversizedMessages(JSON.stringify({ batch }), batch);
    expect(check([small, big, small])).toEqual([1]);
    expect(check([wide, small])).toEqual([0]);
    expect(check(many)).toEqual([]);
    expect(check(two)).toEqual([]);
    expect(check([...many, big])).toEqual([300]);
    // An escaped key hides the array from the scan: the caller measures the parsed messages.
    const escaped = `{"\\u0062atch":${JSON.stringify([small, big])}}`;
    expect(oversizedMessages(escaped, [small, big])).toBeNull();
  });
});
