import { isIP, isIPv4 } from "node:net";
import ipaddr from "ipaddr.js";

const MAPPED = "::ffff:";

/**
 * The dotted IPv4 address a client address stands for: itself, or `a.b.c.d` of `::ffff:a.b.c.d`
 * (a dual-stack socket's IPv4 client, in the form Node gives it); null for any other IPv6 address
 * or what is not an address. Node's own parser, no object made: it runs on every ingest request.
 */
export function ipv4Of(address: string): string | null {
  if (address.startsWith("::") && address.slice(0, MAPPED.length).toLowerCase() === MAPPED) {
    const v4 = address.slice(MAPPED.length);
    return isIPv4(v4) ? v4 : null;
  }
  return isIPv4(address) ? address : null;
}

/** Whether the text is an IPv4 or IPv6 address. */
export const isAddress = (address: string): boolean => isIP(address) !== 0;

/**
 * Whose per-address limits a client's requests count against: an IPv4 address (also written as
 * `::ffff:a.b.c.d`), or an IPv6 client's /64, the smallest block an ISP assigns (one host can use
 * every address in it, so counting addresses would give it 2^64 budgets).
 */
export function addressGroup(ip: string): string {
  if (!ip.includes(":")) return ip;
  const v4 = ipv4Of(ip);
  if (v4) return v4;
  if (!ipaddr.isValid(ip)) return ip;
  const v6 = ipaddr.parse(ip) as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${v6.parts
    .slice(0, 4)
    .map((p) => p.toString(16))
    .join(":")}::/64`;
}
