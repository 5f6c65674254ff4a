import { describe, expect, it } from "vitest";
import { addressGroup, streamOptions } from "./stream-limits.js";

const settings = { perAddress: 100, max: 20_000, lifetimeMs: 600_000, stallMs: 30_000 };

describe("streamOptions", () => {
  it("gives streams half the descriptor limit, at most FLAG_STREAMS_MAX, a quarter of it per project", () => {
    expect(streamOptions(settings, 1024)).toMatchObject({
      maxStreams: 512,
      perProject: 128,
      perAddress: 100,
    });
    expect(streamOptions(settings, 1_048_576)).toMatchObject({ maxStreams: 20_000, perProject: 5_000 });
    expect(streamOptions(settings, Number.POSITIVE_INFINITY).maxStreams).toBe(20_000);
    expect(streamOptions({ ...settings, perKey: 0 }, 1024).perProject).toBe(0);
    expect(streamOptions({ ...settings, perKey: 7, openFiles: 40 })).toMatchObject({
      maxStreams: 20,
      perProject: 7,
    });
  });
});

describe("addressGroup", () => {
  it("counts an IPv4 client alone, also when written IPv4-mapped", () => {
    expect(addressGroup("203.0.113.7")).toBe("203.0.113.7");
    expect(addressGroup("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(addressGroup("203.0.113.8")).not.toBe(addressGroup("203.0.113.7"));
  });

  it("counts every address of an IPv6 /64 together", () => {
    const g = addressGroup("2001:db8:1:2:aaaa:bbbb:cccc:1");
    expect(addressGroup("2001:db8:1:2::ffff")).toBe(g);
    expect(addressGroup("2001:0db8:0001:0002:0:0:0:9")).toBe(g);
    expect(addressGroup("2001:db8:1:3::1")).not.toBe(g);
  });
});
