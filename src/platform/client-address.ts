import ipaddr from "ipaddr.js";

/**
 * Whose per-address limits a client's requests count against: an IPv4 address (also written as
 * `::ffff:a.b.c.d`), or an IPv6 client's /64, the smallest block an ISP assigns (one host can use
 * every address in it, so counting addresses would give it 2^64 budgets).
 */
export function addressGroup(ip: string): string {
  if (!ip.includes(":") || !ipaddr.isValid(ip)) return ip;
  const v6 = ipaddr.parse(ip) as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${v6.parts
    .slice(0, 4)
    .map((p) => p.toString(16))
    .join(":")}::/64`;
}
