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

/** Whose streams count together: as every per-address limit counts (platform/client-address.ts). */
export { addressGroup } from "../../platform/client-address.js";
