import { describe, expect, it } from "vitest";
import { addressGroup, ipv4Of } from "./client-address.js";
import { openGeo } from "./geo.js";

describe("ipv4Of", () => {
  it("reads IPv4 and IPv4-mapped addresses, and nothing else", () => {
    expect(ipv4Of("81.2.69.160")).toBe("81.2.69.160");
    expect(ipv4Of("::ffff:81.2.69.160")).toBe("81.2.69.160");
    expect(ipv4Of("::FFFF:81.2.69.160")).toBe("81.2.69.160");
    expect(ipv4Of("::ffff:0:81.2.69.160")).toBeNull();
    expect(ipv4Of("::ffff:1.2.3.999")).toBeNull();
    expect(ipv4Of("2001:db8::1")).toBeNull();
    expect(ipv4Of("1.2.3")).toBeNull();
    expect(ipv4Of("")).toBeNull();
  });

  it("groups a mapped address with its IPv4 form", () => {
    expect(addressGroup("::FFFF:203.0.113.7")).toBe("203.0.113.7");
    expect(addressGroup("2001:db8:1:2::9")).toBe("2001:db8:1:2::/64");
  });
});

describe("the bundled country database", () => {
  const geo = openGeo("bundled")!;

  it("looks up IPv4, IPv4-mapped and IPv6 addresses", () => {
    expect(geo.country("81.2.69.160")).toBe("GB");
    expect(geo.country("::ffff:81.2.69.160")).toBe("GB");
    expect(geo.country("::FFFF:81.2.69.160")).toBe("GB");
    expect(geo.country("2a00:1450:4001:80b::200e")).toMatch(/^[A-Z]{2}$/);
  });

  it("gives no country to private addresses and to what is not an address", () => {
    for (const a of ["127.0.0.1", "::1", "10.1.2.3", "fe80::1%eth0", "nope", "", "1.2.3"])
      expect(geo.country(a), a).toBeNull();
  });
});
