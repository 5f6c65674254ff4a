import ipaddr from "ipaddr.js";
import type { FlagStreamSettings } from "../../config.js";
import { openFilesLimit } from "../../platform/open-files.js";
import { STREAM_DEFAULTS, type StreamOptions } from "./streams.js";

/** When the descriptor limit cannot be read: the smallest common one (Linux's default soft limit). */
const FALLBACK_OPEN_FILES = 1024;

/**
 * The stream options of a process from its settings. Streams get at most half the descriptor
 * limit: the other half stays for what must keep working while streams are full (the database
 * pool, Redis, ingest and API connections, `/healthz`, files). One project gets a quarter of the
 * process's streams unless told otherwise, so at least three others' SDKs always find room.
 */
export function streamOptions(
  settings: FlagStreamSettings,
  openFiles: number = settings.openFiles ?? openFilesLimit() ?? FALLBACK_OPEN_FILES,
): StreamOptions {
  const maxStreams = Math.max(1, Math.min(settings.max, Math.floor(openFiles / 2)));
  return {
    ...STREAM_DEFAULTS,
    maxStreams,
    perAddress: settings.perAddress,
    perProject: settings.perKey ?? Math.max(1, Math.floor(maxStreams / 4)),
    lifetimeMs: settings.lifetimeMs,
    stallMs: settings.stallMs,
  };
}

/**
 * Whose streams count together: an IPv4 address (also as `::ffff:a.b.c.d`), or an IPv6 client's
 * /64, the smallest block an ISP assigns (one host can use every address in it).
 */
export function addressGroup(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const parsed = ipaddr.parse(ip);
  if (parsed.kind() === "ipv4") return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${v6.parts
    .slice(0, 4)
    .map((p) => p.toString(16))
    .join(":")}::/64`;
}
