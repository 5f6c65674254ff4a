import { SECRET_PREFIXES } from "./auth/keys.js";

/**
 * What never reaches a log line: secrets in query strings (a caller may pass a secret project key
 * as `?key=` to a public endpoint; OAuth callbacks and tracking links carry codes and signatures)
 * and any value shaped like one of Lift's secrets wherever it appears (a 404's message repeats the
 * URL, an error may quote a header). Both patterns are linear: a fixed prefix, then one class.
 */
const SECRET_PARAMS =
  /([?&](?:key|projectKey|writeKey|code|state|token|access_token|refresh_token|sig|signature|secret)=)[^&#\s"]*/gi;
// Every prefix of a secret Lift issues (platform/auth/keys.ts), share links' and invitations'
// included, which travel in URL paths. Prefixes are letters and underscores: nothing to escape.
const SECRET_VALUES = new RegExp(`(${SECRET_PREFIXES.join("|")})[A-Za-z0-9+/=_-]+`, "g");

/** The URL as logged: secret query values replaced by `[redacted]`. */
export const redactUrl = (url: string) => url.replace(SECRET_PARAMS, "$1[redacted]");

/** The last pass over every serialized log line (pino's `hooks.streamWrite`). */
export function scrubLogLine(line: string): string {
  return SECRET_PREFIXES.some((p) => line.includes(p)) ? line.replace(SECRET_VALUES, "$1[redacted]") : line;
}
