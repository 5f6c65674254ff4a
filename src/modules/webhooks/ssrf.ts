import { lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";
import { AppError } from "../../platform/errors.js";

/** Where a delivery connects: the URL's hostname for TLS/Host, and the vetted address to dial. */
export interface ResolvedTarget {
  url: URL;
  /** Hostname without IPv6 brackets. */
  hostname: string;
  port: number;
  address: string;
  family: 4 | 6;
}

/**
 * Why an address may not receive webhooks, or null when it is public unicast. Only ipaddr.js's
 * `unicast` range passes, which excludes loopback, private (RFC 1918), link-local (cloud metadata
 * at 169.254.169.254 and fe80::/10), CGNAT (100.64/10, also Alibaba's metadata 100.100.100.200),
 * unique-local (fc00::/7, AWS's IPv6 metadata fd00:ec2::254), multicast, reserved and the
 * IPv4-embedding IPv6 prefixes (NAT64, 6to4, Teredo) that could smuggle a private IPv4 address.
 */
export function blockedReason(address: string): string | null {
  if (!ipaddr.isValid(address)) return "not an IP address";
  let ip = ipaddr.parse(address);
  // ::ffff:127.0.0.1 reaches 127.0.0.1: judge the IPv4 address it carries.
  if (ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress()) {
    ip = (ip as ipaddr.IPv6).toIPv4Address();
  }
  const range = ip.range();
  return range === "unicast" ? null : range;
}

function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(host);
}

/** Parses and checks a subscription URL's shape (sync part of the SSRF check). */
export function parseWebhookUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new AppError("VALIDATION_ERROR", "url is not a valid URL");
  }
  if (url.protocol !== "https:") throw new AppError("VALIDATION_ERROR", "url must use https");
  if (url.username || url.password) {
    throw new AppError("VALIDATION_ERROR", "url must not carry credentials");
  }
  if (!url.hostname) throw new AppError("VALIDATION_ERROR", "url has no host");
  return url;
}

/**
 * Resolves the URL's host (every address DNS returns) and refuses it when any address is not
 * public, unless `allowPrivate` (ALLOW_PRIVATE_WEBHOOK_TARGETS, development and tests only).
 * The returned address is the one the delivery must connect to, so a DNS answer that changes
 * between check and connect (rebinding) cannot redirect the request.
 */
export async function resolveWebhookTarget(raw: string, allowPrivate: boolean): Promise<ResolvedTarget> {
  const url = parseWebhookUrl(raw);
  const hostname = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const port = url.port ? Number(url.port) : 443;
  let addresses: { address: string; family: number }[];
  if (isIpLiteral(hostname)) {
    addresses = [{ address: hostname, family: ipaddr.parse(hostname).kind() === "ipv6" ? 6 : 4 }];
  } else {
    try {
      addresses = await lookup(hostname, { all: true, verbatim: true });
    } catch {
      throw new AppError("VALIDATION_ERROR", `url host ${hostname} does not resolve`);
    }
  }
  if (addresses.length === 0) throw new AppError("VALIDATION_ERROR", `url host ${hostname} does not resolve`);
  if (!allowPrivate) {
    for (const a of addresses) {
      const reason = blockedReason(a.address);
      if (reason) {
        throw new AppError(
          "VALIDATION_ERROR",
          `url host ${hostname} resolves to a non-public address (${a.address}, ${reason})`,
        );
      }
    }
  }
  const first = addresses[0]!;
  return { url, hostname, port, address: first.address, family: first.family === 6 ? 6 : 4 };
}
